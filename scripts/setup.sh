#!/usr/bin/env bash
# Installs the Debian packages llm0 needs to build, test and run its main job, when missing.
# Usage: scripts/setup.sh   (root, or sudo available)
set -euo pipefail
PKGS=(g++ cmake make pkg-config libopenblas-openmp-dev nlohmann-json3-dev libcli11-dev
      libgtest-dev googletest libpcre2-dev libutf8proc-dev libbenchmark-dev fortunes-zh python3 python3-torch python3-numpy python3-jinja2
      openmpi-bin libopenmpi-dev clang-14 libfuzzer-14-dev libomp-14-dev
      libcpp-httplib-dev ccache chromium fonts-noto-cjk libdnnl-dev libopencc-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm (playwright-core, KaTeX and the peers' packages): Debian's, unless a node is already there.
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
