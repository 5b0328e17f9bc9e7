#!/usr/bin/env bash
# Writes tests/data/gguf_quant/model-{Q8_0,Q4_0,Q4_K_M,Q6_K}.gguf: a small llama
# (tests/data/gguf_quant/config.json: hidden 256, intermediate 512, 2 layers, 4 heads of 64, 2 KV
# heads, vocab 512; every matrix row a multiple of 256 so that Q4_K and Q6_K apply everywhere),
# trained for 10 minutes on `llm0 data`'s corpus with a 512-token byte-level BPE, exported to F32
# GGUF by `llm0 export gguf`, then quantized by llama.cpp's own `llama-quantize` (built from the
# source bundled in bench/peers by scripts/build_llama_bench.sh). Prints the type of every tensor
# of each file (gguf-py's reader) for tests/data/gguf_quant/README.md.
# Training is not bitwise reproducible across machines (thread timing of the time limit, BLAS
# kernels): the committed files are the ones one run made; rerunning gives equivalent files.
#   tests/gen/gen_gguf_quant_models.sh            # from the repository root, after a build
# Environment: LLM0 (build/llm0), WORK (scratch, default a fresh mktemp -d), MINUTES (10).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LLM0=${LLM0:-$ROOT/build/llm0}
MINUTES=${MINUTES:-10}
WORK=${WORK:-$(mktemp -d)}
OUT=$ROOT/tests/data/gguf_quant
QUANTIZE=$("$ROOT/scripts/build_llama_bench.sh" llama-quantize | tail -1)
GGUF_PY=$(dirname "$(dirname "$QUANTIZE")")/../src/gguf-py

"$LLM0" data --output "$WORK/corpus" >/dev/null
"$LLM0" train --config "$OUT/config.json" --data "$WORK/corpus" --out "$WORK/run" --seq-len 128 \
  --batch-size 8 --time-limit-minutes "$MINUTES" --threads 1 --lr 0.003 --eval-every 500 --quiet
"$LLM0" export gguf --model "$WORK/run/checkpoint" --output "$WORK/model-F32.gguf"
for q in Q8_0 Q4_0 Q4_K_M Q6_K; do
  "$QUANTIZE" "$WORK/model-F32.gguf" "$OUT/model-$q.gguf" "$q" 1 >"$WORK/quantize-$q.log" 2>&1
done
GGUF_PY=$GGUF_PY /usr/bin/python3 - "$OUT" <<'PY'
import os, sys
sys.path.insert(0, os.environ["GGUF_PY"])
from gguf import GGUFReader
for q in ("Q8_0", "Q4_0", "Q4_K_M", "Q6_K"):
    path = os.path.join(sys.argv[1], f"model-{q}.gguf")
    types = {}
    for t in GGUFReader(path).tensors:
        types.setdefault(t.tensor_type.name, []).append(t.name)
    print(f"model-{q}.gguf ({os.path.getsize(path)} bytes):")
    for name, tensors in types.items():
        print(f"  {name}: {', '.join(tensors)}")
PY
