#!/usr/bin/env bash
# Training in BF16 against float32 (issue 28): `llm0 bench train --precision f32|bf16`, [B, T] =
# [8, 256], interleaved run by run (f32, bf16, f32, ...), for llm0-small and llm0-30m at 1 and 2
# threads. Prints a markdown table: median tokens/s of REPS runs per precision, the median of the
# per-run ratios bf16 / f32, and each precision's MFU against sgemm and against its own peak (the
# float32 FMA peak, or the BF16 dot-product peak). A busy machine slows both alike within a pair:
# quote the ratios.
#   scripts/bench_train_precision.sh [LLM0]      (default build/llm0)
# Environment: REPS (3), THREADS ("1 2"), CONFIGS ("llm0-small llm0-30m"), STEPS (3).
set -Eeuo pipefail
trap 'rc=$?; echo "$(basename "$0"): failed (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
LLM0=$(realpath "${1:-build/llm0}")
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2"}
CONFIGS=${CONFIGS:-"llm0-small llm0-30m"}
STEPS=${STEPS:-3}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| config | threads | f32 tok/s | bf16 tok/s | bf16 / f32 | MFU f32: sgemm / FMA peak | MFU bf16: sgemm / BF16 peak |"
echo "|---|---|---|---|---|---|---|"
for cfg in $CONFIGS; do
  for t in $THREADS; do
    out=$(for r in $(seq "$REPS"); do
      for p in f32 bf16; do
        "$LLM0" bench train --config "configs/$cfg.json" --steps "$STEPS" --precision "$p" \
          --threads "$t" --json
      done
    done)
    python3 - "$cfg" "$t" <<PY
import json, statistics as st, sys
runs = [json.loads(l) for l in """$out""".splitlines() if l.startswith("{")]
f = [r for r in runs if r["precision"] == "f32"]; b = [r for r in runs if r["precision"] == "bf16"]
ratio = st.median(y["tokens_per_s"] / x["tokens_per_s"] for x, y in zip(f, b))
med = lambda rs, k: st.median(r[k] for r in rs)
print(f"| {sys.argv[1]} | {sys.argv[2]} | {med(f,'tokens_per_s'):.0f} | {med(b,'tokens_per_s'):.0f} | "
      f"{ratio:.2f}× | {100*med(f,'mfu'):.0f}% / {100*med(f,'mfu_peak'):.0f}% | "
      f"{100*med(b,'mfu'):.0f}% / {100*med(b,'mfu_peak'):.0f}% |")
PY
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
