# Sourced by the serve test scripts (bash). start_server NAME LOG ARGS...: starts
# `$LLM0 serve ARGS --port 0` in the background, stderr to LOG, and sets PID and PORT once its
# "listening on" line is complete (it may be read while being written; it ends with the prefix
# cache state); calls the script's die "NAME: ..." when the server exits at start or never listens.
start_server() {
  local name=$1 log=$2
  shift 2
  "$LLM0" serve "$@" --port 0 2>"$log" &
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
