#!/usr/bin/env bash
# Prepares a training corpus the way `make run` does (scripts/main_job.sh calls this, and so does
# the explorer's "prepare the corpus" button: POST /explore/api/train/corpus).
# Usage: scripts/prepare_corpus.sh SOURCE DIR [LLM0]
#   SOURCE  fortunes-zh (Debian's fortunes-zh: Tang and Song poems, classical Chinese), or
#           chinese-poetry (the npm package: ~334k Tang and Song shi, Song ci, Shijing, Chuci,
#           converted to simplified characters; installed first by scripts/poetry_npm_install.sh)
#   DIR     output directory (train.jsonl + validation.jsonl), e.g. runs/corpus
#   LLM0    the llm0 program (default build/llm0)
set -euo pipefail
SOURCE=${1:?usage: scripts/prepare_corpus.sh SOURCE DIR [LLM0]}
DIR=${2:?usage: scripts/prepare_corpus.sh SOURCE DIR [LLM0]}
LLM0=${3:-build/llm0}
case "$SOURCE" in
  fortunes-zh) "$LLM0" data --source fortunes-zh --output "$DIR" ;;
  chinese-poetry)
    "$(dirname "$0")/poetry_npm_install.sh"
    "$LLM0" data --source chinese-poetry \
      --poetry-dir "$(cd "$(dirname "$0")/.." && pwd)/data/chinese-poetry/node_modules/chinese-poetry" \
      --output "$DIR" ;;
  *) echo "prepare_corpus: unknown corpus source '$SOURCE' (fortunes-zh, chinese-poetry)" >&2; exit 2 ;;
esac
