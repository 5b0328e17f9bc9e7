#!/usr/bin/env bash
# MoE decode against the dense model of the same active parameters (issue 11's "within 1.3x"), and
# why they differ: `llm0 bench generate` (tg128 after an empty cache, --repeats 3) of
#   dense        configs/llm0-small.json (6.25M) / configs/llm0-30m.json (29.4M)
#   moe          configs/bench-qwen3moe.json (6.27M active of 15.8M: 8 experts of 344, top 2) /
#                configs/bench-30m-qwen3moe.json (29.4M active of 86M: llm0-30m's MLP as 8 experts
#                of 768, top 2); pair small-moe: llm0-small against the preset
#                configs/llm0-small-moe.json (6.20M active of 12.39M, a gated shared expert)
#   moe-fixed    the same MoE checkpoint with every router (mlp.gate.weight) zero: uniform scores,
#                ties to the lower id, so every token takes experts 0 and 1 — the same code and the
#                same bytes per token, but a working set of the active parameters only;
# random init, F32 and BF16 weights (--weights-dtype), 1 and 2 threads, REPS interleaved rounds
# (the models of a pair run back to back, so a load change hits all). Prints medians (min–max) of
# tokens/s, the median of the per-round ratios dense / MoE (the target: <= 1.3), the weight bytes
# read per token and that traffic against the measured read bandwidth (decode_bytes_per_s /
# read_bytes_per_s: above 100% means part of it came from the caches).
#
#   scripts/bench_moe_decode.sh
# Environment: BUILD (default build), REPS (5), THREADS ("1 2"), DTYPES ("f32 bf16"),
# PAIRS ("small 30m"; also small-moe), WORK (scratch folder, default mktemp -d).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLM0=$ROOT/${BUILD:-build}/llm0
PY=/usr/bin/python3
REPS=${REPS:-5}
THREADS=${THREADS:-"1 2"}
DTYPES=${DTYPES:-"f32 bf16"}
PAIRS=${PAIRS:-"small 30m"}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
declare -A DENSE=([small]=configs/llm0-small.json [small-moe]=configs/llm0-small.json [30m]=configs/llm0-30m.json)
declare -A MOE=([small]=configs/bench-qwen3moe.json [small-moe]=configs/llm0-small-moe.json
                [30m]=configs/bench-30m-qwen3moe.json)
RESULTS=$WORK/results.jsonl
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
[ -x "$LLM0" ] || { echo "bench_moe_decode.sh: llm0 not found at $LLM0 (make build, or set BUILD)" >&2; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "bench_moe_decode.sh: $PY cannot import numpy" >&2; exit 1; }
cd "$ROOT"
: >"$RESULTS"
log "work directory: $WORK; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

for p in $PAIRS; do
  [ -n "${DENSE[$p]:-}" ] || { echo "bench_moe_decode.sh: unknown pair $p (small, small-moe or 30m)" >&2; exit 1; }
  "$LLM0" init --config "${DENSE[$p]}" --seed 1 --output "$WORK/$p-dense" --overwrite >/dev/null
  "$LLM0" init --config "${MOE[$p]}" --seed 1 --output "$WORK/$p-moe" --overwrite >/dev/null
  rm -rf "$WORK/$p-moe-fixed"
  cp -r "$WORK/$p-moe" "$WORK/$p-moe-fixed"
  "$PY" - "$WORK/$p-moe-fixed/model.safetensors" <<'EOF'
import sys
sys.path.insert(0, "tools")
import numpy as np, torch_twin
w = torch_twin.read_safetensors(sys.argv[1])
for k in w:
    if k.endswith("mlp.gate.weight"):
        w[k] = np.zeros_like(w[k])
torch_twin.write_safetensors(sys.argv[1], w)
EOF
done

for rep in $(seq 1 "$REPS"); do
  for t in $THREADS; do
    for d in $DTYPES; do
      for p in $PAIRS; do
        log "round $rep/$REPS, $t thread(s), $d, $p"
        kinds="dense moe moe-fixed"
        [ $((rep % 2)) = 0 ] && kinds="moe-fixed moe dense"
        for k in $kinds; do
          "$PY" -c 'import json,sys; d=json.loads(sys.argv[2]); d["tag"]=sys.argv[1]; print(json.dumps(d))' \
            "$p $k $t $d $rep" "$("$LLM0" bench generate --model "$WORK/$p-$k" --prompt-tokens 64 \
            --gen-tokens 128 --repeats 3 --threads "$t" --weights-dtype "$d" --json)" >>"$RESULTS"
        done
      done
    done
  done
done

{
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $REPS interleaved rounds"
  echo
  "$PY" - "$RESULTS" "$PAIRS" "$THREADS" "$DTYPES" "$REPS" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pairs, threads, dtypes, reps = sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(), int(sys.argv[5])
def get(p, k, t, d, key):
    return {int(r["tag"].split()[-1]): r[key] for r in rows if r["tag"].rsplit(" ", 1)[0] == f"{p} {k} {t} {d}"}
def med(xs):
    return f"{statistics.median(xs):,.0f} ({min(xs):,.0f}–{max(xs):,.0f})"
def ratio(a, b):
    rs = [a[i] / b[i] for i in a if i in b]
    return f"**{statistics.median(rs):.2f}×** ({min(rs):.2f}–{max(rs):.2f})"
def pct(p, k, t, d):
    f = list(get(p, k, t, d, "fraction_of_bound").values())
    return f"{100 * statistics.median(f):.0f}%"
print("| pair | weights | threads | dense tok/s | MoE tok/s | dense / MoE | MoE fixed routing tok/s | dense / fixed | MB/token dense, MoE | traffic ÷ read bandwidth: dense, MoE, fixed |")
print("|---|---|---|---|---|---|---|---|---|---|")
for p in pairs:
    for d in dtypes:
        for t in threads:
            de, mo, fx = (get(p, k, t, d, "decode_tokens_per_s") for k in ("dense", "moe", "moe-fixed"))
            if not de:
                continue
            mb = [next(iter(get(p, k, t, d, "weight_bytes_per_token").values())) / 1e6 for k in ("dense", "moe")]
            print(f"| {p} | {d} | {t} | {med(de.values())} | {med(mo.values())} | {ratio(de, mo)} | "
                  f"{med(fx.values())} | {ratio(de, fx)} | {mb[0]:.1f}, {mb[1]:.1f} | "
                  f"{pct(p, 'dense', t, d)}, {pct(p, 'moe', t, d)}, {pct(p, 'moe-fixed', t, d)} |")
EOF
} | tee "$WORK/table.md"
log "results: $RESULTS, table: $WORK/table.md"
