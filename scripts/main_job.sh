#!/usr/bin/env bash
# The main job (`make run`): prepare the corpus (default: the npm package chinese-poetry, ~334k
# Tang and Song poems in simplified characters, installed on demand; CORPUS=fortunes-zh: Debian's
# fortunes-zh, 5,672 poems and classical sayings), train a preset (CONFIG, default
# configs/llm0-small.json) from random weights for MINUTES minutes (default 10), then generate from
# 床前明月光 with the KV cache.
# Environment: CONFIG (model preset), MINUTES (training budget), DROPOUT (residual dropout, default
# 0.1; 0 = off), THREADS (default: all cores), CORPUS (poetry, the default, prepared in
# runs/corpus-poetry; or fortunes-zh, prepared in runs/corpus), RUN (run directory; default
# runs/<preset name without "llm0-">, e.g. runs/small, with "-fortunes" appended for
# CORPUS=fortunes-zh: runs/small-fortunes).
set -euo pipefail
cd "$(dirname "$0")/.."
LLM0=build/llm0
CONFIG=${CONFIG:-configs/llm0-small.json}
[ -f "$CONFIG" ] || { echo "make run: CONFIG=$CONFIG is not a file (presets are in configs/)" >&2; exit 1; }
name=$(basename "$CONFIG" .json)
# poetry is the default since issue 42's measurement (docs/training.md, "Which corpus"): at the same
# 2,000 steps its model writes regular verse and is not data-limited, where fortunes-zh's 0.5M
# tokens are passed over ~8 times and its run ends overfitting.
case "${CORPUS:-poetry}" in
  fortunes-zh|fortunes) SOURCE=fortunes-zh DATA=runs/corpus SUFFIX=-fortunes ;;
  poetry|chinese-poetry) SOURCE=chinese-poetry DATA=runs/corpus-poetry SUFFIX= ;;
  *) echo "make run: CORPUS=$CORPUS is not a corpus (fortunes-zh, poetry)" >&2; exit 1 ;;
esac
RUN=${RUN:-runs/${name#llm0-}$SUFFIX}
MINUTES=${MINUTES:-10}
THREADS=${THREADS:-0}
[ -f "$DATA/validation.jsonl" ] || scripts/prepare_corpus.sh "$SOURCE" "$DATA" "$LLM0"
if [ -d "$RUN/checkpoint" ] || [ -f "$RUN/metrics.jsonl" ]; then  # keep the previous run, not overwrite it
  rm -rf "$RUN.previous" && mv "$RUN" "$RUN.previous"
  echo "(the previous run was moved to $RUN.previous)"
fi
# --dropout 0.1 (the Transformer's residual dropout): ten minutes are ~6-10 passes over fortunes-zh's
# 0.5M-token corpus, and without it the validation loss stops falling after ~1,500 steps while the
# training loss keeps falling (docs/training.md: the before/after of issue 28).
$LLM0 train --config "$CONFIG" --data "$DATA" --out "$RUN" \
  --time-limit-minutes "$MINUTES" --threads "$THREADS" --dropout "${DROPOUT:-0.1}" \
  --sample-prompt 床前明月光 --sample-prompt 春眠不觉晓 --attention-text 床前明月光，疑是地上霜。
echo
echo "=== llm0 generate --model $RUN --prompt 床前明月光 (KV cache, temperature 0.8, top-k 40) ==="
$LLM0 generate --model "$RUN" --prompt "床前明月光" --max-new-tokens 200 --temperature 0.8 \
  --top-k 40 --seed 1 --threads "$THREADS"
echo
echo "loss curve: $RUN/loss_curve.svg   metrics: $RUN/metrics.jsonl   checkpoint: $RUN/checkpoint/"
echo
# The training page attaches to runs under runs/ by name (llm0 explore --runs runs, the default).
page=""
if [ "$(dirname "$RUN")" = runs ]; then page=$(basename "$RUN"); fi
echo "Next: $LLM0 explore --model $RUN"
if [ -n "$page" ]; then
  echo "  then open http://127.0.0.1:8090/explore/train.html?run=$page — this run's training replayed: its loss"
  echo "  curve against the unigram and bigram baselines, the samples and attention maps of every validation;"
  echo "  start, watch, stop and resume the next run from there (从零训练 / Train from zero)."
fi
echo "  The lesson pages (retrieving V, the KV cache, the cache kinds, your model's attention and cache) are at"
echo "  http://127.0.0.1:8090/explore/, every number computed by this engine on this model."
