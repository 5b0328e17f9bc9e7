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
# Usage: tests/peer/test_gguf_quant_parity.sh PATH/TO/llm0
# Environment: N (generated tokens, 64), THREADS (1), WORK (scratch, kept; default removed at exit).
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
done
[ $fail = 0 ] && echo "gguf quant parity: PASS" || echo "gguf quant parity: FAIL"
exit $fail
