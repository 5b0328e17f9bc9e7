#!/usr/bin/env bash
# One llama-bench run (-p 64 -n 128 -r 3, its defaults otherwise) of a GGUF file, printed as one
# JSON line {"engine", "prefill_tokens_per_s", "decode_tokens_per_s", "build_commit"}: the peer
# row of scripts/bench_peers.sh and scripts/bench_bf16.sh.
#
#   scripts/llama_bench_json.sh LLAMA_BENCH MODEL.gguf THREADS
set -euo pipefail
out=$("$1" -m "$2" -p 64 -n 128 -t "$3" -r 3 -o json 2>/dev/null)
/usr/bin/python3 -c '
import json, sys
rows = json.loads(sys.argv[1])
pp = [r["avg_ts"] for r in rows if r["n_prompt"] > 0 and r["n_gen"] == 0]
tg = [r["avg_ts"] for r in rows if r["n_gen"] > 0 and r["n_prompt"] == 0]
print(json.dumps({"engine": "llama-bench", "prefill_tokens_per_s": pp[0], "decode_tokens_per_s": tg[0],
                  "build_commit": rows[0].get("build_commit", "")}))' "$out"
