#!/usr/bin/env bash
# ctest peer_gguf_quant_parity: quantized GGUF files written by llama.cpp's own quantizer
# (tests/data/gguf_quant/model-{Q8_0,Q4_0,Q4_K_M,Q6_K}.gguf, a small trained llama; README there)
# run in llama.cpp (node-llama-cpp's prebuilt CPU build, bench/peers/parity.mjs) and in llm0 after
# `llm0 convert --from gguf` (weights dequantized to float32). Both decode greedily from the same
# prompt ids; bench/peers/compare_quant.mjs prints where and by how much they differ.
#   Q8_0: the first N ids identical.
#   Q4_0, Q4_K_M (Q4_K + Q6_K), Q6_K: identical, or identical up to a near-tie, i.e. a step where
#   the two engines' disagreement about the two picks is within twice their largest disagreement
#   on the other tokens (llama.cpp quantizes the activations to 8 bits inside these dot products).
# Each file is also widened to F32 by llama.cpp's gguf-py (tests/peer/gguf_widen.py; its bytes
# equal `llama-quantize --allow-requantize IN OUT F32`'s) and run in llama.cpp: that run and
# llm0's must give identical ids and log-probabilities within 1e-4 (float32 rounding, as in
# scripts/parity_llamacpp.sh), which pins the gap above on llama.cpp's activation quantization
# and closes what the near-tie rule alone would let pass (Q4_0 with its offset off by one, -7 for
# -8, moved log-probabilities by 0.68 and still parted at a "near-tie" of 0.57 + 0.46).
# Usage: tests/peer/test_gguf_quant_parity.sh PATH/TO/llm0
# Environment: N (generated tokens, 64), THREADS (1), WORK (scratch, kept; default removed at exit),
# GGUF_PY (gguf-py of the bundled llama.cpp; default ../llama.cpp-bench/src/gguf-py, else the git
# bundle in bench/peers is cloned into WORK). Needs /usr/bin/python3 with numpy (scripts/setup.sh).
# Exit 77 (ctest SKIP_RETURN_CODE) when node/npm are missing or npm cannot install the package.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=$1
N=${N:-64}
THREADS=${THREADS:-1}
PEERS=$ROOT/bench/peers
DATA=$ROOT/tests/data/gguf_quant
PROMPT=$'《春晓》\n作者：孟浩然\n'
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node/npm not found"; exit 77; }
"$ROOT/scripts/peers_npm_install.sh" || { echo "skipped: npm install of node-llama-cpp failed"; exit 77; }
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
/usr/bin/python3 -c 'import numpy' || { echo "FAIL: /usr/bin/python3 has no numpy (scripts/setup.sh installs python3-numpy)"; exit 1; }
GGUF_PY=${GGUF_PY:-$ROOT/../llama.cpp-bench/src/gguf-py}
if [ ! -d "$GGUF_PY" ]; then
  git clone --quiet "$PEERS/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$WORK/llama.cpp" || exit 1
  GGUF_PY=$WORK/llama.cpp/gguf-py
fi

fail=0
for spec in Q8_0:exact Q4_0:near-tie Q4_K_M:near-tie Q6_K:near-tie; do
  q=${spec%%:*} mode=${spec#*:} out=$WORK/$q
  mkdir -p "$out"
  "$LLM0" convert --from gguf "$DATA/model-$q.gguf" --output "$out/checkpoint" --overwrite >/dev/null || { fail=1; continue; }
  "$LLM0" generate --model "$out/checkpoint" --prompt "$PROMPT" --temperature 0 --max-new-tokens "$N" \
    --json --threads "$THREADS" >"$out/llm0.json" || { fail=1; continue; }
  ids=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                 console.log(r.prompt_ids.join(" "), "|", r.prompt_ids.concat(r.generated_ids).join(" "))' "$out/llm0.json")
  "$LLM0" forward --model "$out/checkpoint" --tokens "${ids#*| }" --output "$out/logits.npy" \
    --threads "$THREADS" || { fail=1; continue; }
  node "$PEERS/parity.mjs" --model "$DATA/model-$q.gguf" --prompt-ids "${ids%% |*}" --n "$N" \
    --steps-top 8 --threads "$THREADS" >"$out/llama.json" || { fail=1; continue; }
  verdict=$(node "$PEERS/compare_quant.mjs" "$out/llm0.json" "$out/logits.npy" "$out/llama.json" "$N" "$mode") || fail=1
  echo "$q: $verdict"
  GGUF_PY=$GGUF_PY /usr/bin/python3 "$ROOT/tests/peer/gguf_widen.py" "$DATA/model-$q.gguf" "$out/widened.gguf" || { fail=1; continue; }
  node "$PEERS/parity.mjs" --model "$out/widened.gguf" --prompt-ids "${ids%% |*}" --n "$N" \
    --steps-top 8 --threads "$THREADS" >"$out/llama-widened.json" || { fail=1; continue; }
  verdict=$(node "$PEERS/compare_quant.mjs" "$out/llm0.json" "$out/logits.npy" "$out/llama-widened.json" "$N" exact 1e-4) || fail=1
  echo "$q widened to F32 by gguf-py: $verdict"
done
[ $fail = 0 ] && echo "gguf quant parity: PASS" || echo "gguf quant parity: FAIL"
exit $fail
