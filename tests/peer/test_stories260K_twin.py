#!/usr/bin/python3
"""stories260K converted from llama2.c: llm0's logits against the PyTorch twin (tools/torch_twin.py).

  /usr/bin/python3 tests/peer/test_stories260K_twin.py PATH/TO/llm0

Converts tests/data/stories260K (llm0 convert --from llama2c), then on <s> + the first 63 tokens of
the golden greedy story (tests/data/stories260K/greedy_200.json) compares llm0's logits [64, 512]
with the twin's (float64) for the full forward and the cached path (`llm0 forward --chunks 5,3,1`:
prefill 5, then 3, then single tokens): max |difference| < 1e-4. Also checks that the greedy
argmax of the twin's logits at each position is the golden's next token.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "stories260K")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import torch_twin  # noqa: E402

TOL = 1e-4


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {r.returncode}: {r.stderr}")


def main():
    llm0 = sys.argv[1]
    golden = json.load(open(os.path.join(DATA, "greedy_200.json")))
    tokens = golden["prompt_ids"] + golden["ids"][:63]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stories260K")
        run([llm0, "convert", "--from", "llama2c", os.path.join(DATA, "stories260K.bin"), "--tokenizer",
             os.path.join(DATA, "tok512.bin"), "--output", out])
        cfg = torch_twin.load_config(os.path.join(out, "config.json"))
        twin = torch_twin.Twin(cfg, torch_twin.read_safetensors(os.path.join(out, "model.safetensors")),
                               torch.float64)
        with torch.no_grad():
            ref = twin.logits(torch.tensor([tokens]))[0].numpy()  # [T, V]
        nxt = golden["ids"][:64]
        if list(ref.argmax(axis=1)) != nxt:
            sys.exit("FAIL: the twin's argmax differs from the golden story")
        ids = " ".join(map(str, tokens))
        bad = False
        for name, extra in (("full", []), ("cached 5,3,1", ["--chunks", "5,3,1"])):
            path = os.path.join(tmp, "logits.npy")
            run([llm0, "forward", "--model", out, "--tokens", ids, "--output", path] + extra)
            got = np.load(path).astype(np.float64)
            err = np.abs(got - ref)
            t, v = np.unravel_index(err.argmax(), err.shape)
            print(f"{name}: max |llm0 - twin| = {err.max():.3g} at position {t}, token {v} "
                  f"(logits up to {np.abs(ref).max():.3g}); tolerance {TOL}")
            bad |= not err.max() < TOL
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
