#!/usr/bin/env bash
# The main job (`make run`): prepare the default corpus (Debian's fortunes-zh: Tang and Song
# poems, classical Chinese), train the default preset (configs/llm0-small.json) from random
# weights for MINUTES minutes (default 10), then generate from 床前明月光 with the KV cache.
# Environment: MINUTES (training budget), THREADS (default: all cores), RUN (run directory).
set -euo pipefail
cd "$(dirname "$0")/.."
LLM0=build/llm0
RUN=${RUN:-runs/small}
MINUTES=${MINUTES:-10}
THREADS=${THREADS:-0}
[ -f runs/corpus/train.jsonl ] || $LLM0 data --source fortunes-zh --output runs/corpus
if [ -d "$RUN/checkpoint" ]; then  # keep the previous run instead of overwriting it
  rm -rf "$RUN.previous" && mv "$RUN" "$RUN.previous"
  echo "(the previous run was moved to $RUN.previous)"
fi
$LLM0 train --config configs/llm0-small.json --data runs/corpus --out "$RUN" \
  --time-limit-minutes "$MINUTES" --threads "$THREADS"
echo
echo "=== llm0 generate --model $RUN --prompt 床前明月光 (KV cache, temperature 0.8, top-k 40) ==="
$LLM0 generate --model "$RUN" --prompt "床前明月光" --max-new-tokens 200 --temperature 0.8 \
  --top-k 40 --seed 1 --threads "$THREADS"
echo
echo "loss curve: $RUN/loss_curve.svg   metrics: $RUN/metrics.jsonl   checkpoint: $RUN/checkpoint/"
