#!/usr/bin/env bash
# Installs the npm package chinese-poetry (2.0.1, MIT: 全唐诗, 宋诗, 宋词, 诗经, 楚辞 ... as JSON;
# an 83 MB download, ~350 MB unpacked), pinned in data/chinese-poetry/package.json, into
# data/chinese-poetry/node_modules/ (gitignored), for `llm0 data --source chinese-poetry`.
# On demand only: scripts/prepare_corpus.sh chinese-poetry (make run, the explorer's
# "prepare the corpus" button) calls it; make build, make test and CI never do. Idempotent: does
# nothing when the package is there. npm's own output goes to stderr.
#
#   scripts/poetry_npm_install.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/data/chinese-poetry
PACKAGE=$DIR/node_modules/chinese-poetry

[ -d "$PACKAGE/dist" ] && exit 0
echo "poetry_npm_install.sh: chinese-poetry 2.0.1 into $DIR (an 83 MB download)" >&2
# The npm install itself, as every other npm package of the project is installed.
PEERS=$DIR PACKAGE=chinese-poetry "$ROOT/scripts/peers_npm_install.sh"
[ -d "$PACKAGE/dist" ] || { echo "poetry_npm_install.sh: npm install left no $PACKAGE/dist" >&2; exit 1; }
