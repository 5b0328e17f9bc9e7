#!/usr/bin/python3
"""Golden greedy story of stories260K from the PyTorch twin (tools/torch_twin.py), not from llm0.

  /usr/bin/python3 tests/gen/gen_stories260K_golden.py CONVERTED_DIR [--tokens 200]

CONVERTED_DIR is `llm0 convert --from llama2c tests/data/stories260K/stories260K.bin --tokenizer
tests/data/stories260K/tok512.bin --output DIR`. Greedy decoding (argmax, lowest id on a tie) from
<s> (id 1), recomputing the full forward in float64 each step, as llama2.c's run.c does with
temperature 0. Writes tests/data/stories260K/greedy_200.json: {"prompt_ids", "ids", "text"}; the
text is decoded as llama2.c's decode() does (pieces of tok512.bin, "<0xXX>" as a byte, the space
after <s> dropped).
"""
import argparse
import json
import os
import struct
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import torch_twin  # noqa: E402


def read_pieces(path):
    raw = open(path, "rb").read()
    pos, pieces = 4, []
    while pos < len(raw):
        _score, n = struct.unpack("<fi", raw[pos:pos + 8])
        pieces.append(raw[pos + 8:pos + 8 + n])
        pos += 8 + n
    return pieces


def decode(pieces, prev, tok):
    p = pieces[tok]
    if prev == 1 and p.startswith(b" "):
        p = p[1:]
    if len(p) == 6 and p.startswith(b"<0x") and p.endswith(b">"):
        return bytes([int(p[3:5], 16)])
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--output", default=os.path.join(ROOT, "tests/data/stories260K/greedy_200.json"))
    a = ap.parse_args()
    cfg = torch_twin.load_config(os.path.join(a.model, "config.json"))
    twin = torch_twin.Twin(cfg, torch_twin.read_safetensors(os.path.join(a.model, "model.safetensors")),
                           torch.float64)
    ids = [1]
    with torch.no_grad():
        for _ in range(a.tokens):
            logits = twin.logits(torch.tensor([ids]))[0, -1]
            ids.append(int(torch.argmax(logits)))
    pieces = read_pieces(os.path.join(ROOT, "tests/data/stories260K/tok512.bin"))
    text = b"".join(decode(pieces, p, t) for p, t in zip(ids[:-1], ids[1:]))
    out = {"prompt_ids": ids[:1], "ids": ids[1:], "text": text.decode("utf-8", errors="replace")}
    with open(a.output, "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(out["text"])


if __name__ == "__main__":
    main()
