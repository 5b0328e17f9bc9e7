#!/usr/bin/env bash
# Installs KaTeX (npm katex, the exact version pinned in web/vendor/package.json) for the formulas
# of `llm0 explore` and copies its built files — katex.min.js, katex.min.css and the WOFF2 fonts —
# to web/vendor/katex/ (gitignored), which the next build embeds into the binary. Idempotent:
# does nothing when web/vendor/katex/katex.min.js exists. Without npm or the registry it says so
# and exits 0: the build still succeeds and the pages show formulas as text.
#
#   scripts/explore_npm_install.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENDOR=$ROOT/web/vendor
OUT=$VENDOR/katex

[ -f "$OUT/katex.min.js" ] && exit 0
if ! command -v npm >/dev/null; then
  echo "explore_npm_install.sh: npm not found (Debian: apt-get install npm); formulas will show as text" >&2
  exit 0
fi
if [ ! -f "$VENDOR/node_modules/katex/dist/katex.min.js" ]; then
  echo "explore_npm_install.sh: running npm install in $VENDOR" >&2
  (cd "$VENDOR" && npm install --no-audit --no-fund >&2) || {
    echo "explore_npm_install.sh: npm install failed (no registry?); formulas will show as text" >&2
    exit 0
  }
fi
DIST=$VENDOR/node_modules/katex/dist
mkdir -p "$OUT/fonts"
cp "$DIST/katex.min.js" "$DIST/katex.min.css" "$OUT/"
cp "$DIST"/fonts/*.woff2 "$OUT/fonts/"
echo "explore_npm_install.sh: KaTeX $(node -p "require('$VENDOR/node_modules/katex/package.json').version" 2>/dev/null || echo '?') -> $OUT" >&2
