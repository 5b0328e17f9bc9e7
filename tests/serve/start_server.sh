# Sourced by the serve test scripts (bash) after they set LLM0 and TEST_NAME: makes the scratch
# folder WORK (removed at exit with the server PID, if any) and die MESSAGE (prints it and the
# server's log, exits 1); skips the test (exit 77) without curl or Debian's python3.
command -v curl >/dev/null || { echo "skipped: curl not found"; exit 77; }
# Debian's interpreter, not whatever `python3` is first on PATH: a version manager's shim there
# (pyenv's) costs a second per call, and these scripts call it dozens of times.
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "skipped: $PY not found (Debian: apt-get install python3)"; exit 77; }
WORK=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
die() { echo "$TEST_NAME: $*" >&2; [ -f "$WORK/server.log" ] && cat "$WORK/server.log" >&2; exit 1; }

# start_server NAME LOG ARGS...: starts
# `$LLM0 serve ARGS --port 0` in the background, stderr to LOG, and sets PID and PORT once its
# "listening on" line is complete (it may be read while being written; it ends with the prefix
# cache state); calls the script's die "NAME: ..." when the server exits at start or never listens.
start_server() {
  local name=$1 log=$2
  shift 2
  # Empty LOG here, not only in the background job's redirection: a script that starts a second
  # server on the same LOG would otherwise read the first server's "listening on" line (its port,
  # its prefix cache state) if the job has not truncated LOG yet.
  : > "$log"
  "$LLM0" serve "$@" --port 0 2>>"$log" &
  PID=$!
  PORT=
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\) .*prefix cache [a-z]*)$/\1/p' "$log")
    [ -n "$PORT" ] && return 0
    kill -0 "$PID" 2>/dev/null || die "$name: the server exited at start"
    sleep 0.1
  done
  die "$name: no 'listening on' line"
}

# train_tokenizer LINE: a 300-token byte-level BPE in $WORK/tokenizer.json, trained on 30 numbered
# lines about a cat and a dog and the script's own LINE (the scripts' tiny models read it).
train_tokenizer() {
  for i in $(seq 1 30); do
    echo "The cat sat on the mat number $i. A dog ran to the park and back again, twice."
    echo "$1"
  done > "$WORK/corpus.txt"
  "$LLM0" tokenizer train --data "$WORK/corpus.txt" --vocab-size 300 --output "$WORK/tokenizer.json" >/dev/null ||
    die "tokenizer train failed"
}
