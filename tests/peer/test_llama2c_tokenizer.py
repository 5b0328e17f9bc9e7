#!/usr/bin/python3
"""llm0's SentencePiece-style BPE against llama2.c's own encode(), re-implemented here.

  /usr/bin/python3 tests/peer/test_llama2c_tokenizer.py PATH/TO/llm0

Converts tests/data/stories260K (llm0 convert --from llama2c), then for every line of a corpus
(English, digits, punctuation, runs of spaces, tabs, newlines, Chinese and emoji for byte fallback)
checks that `llm0 tokenizer encode` on the converted tokenizer.json gives the ids of llama2.c's
run.c encode() (bos=0, eos=0): a dummy-prefix " " token, one token per UTF-8 code point (its bytes
+ 3 when the code point is not a piece), then the adjacent pair whose merged piece scores best is
merged (leftmost on a tie) until none is left. Also checks that `llm0 tokenizer decode` gives the
text back (HF's decode: the dummy-prefix space stripped).
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "stories260K")


def read_tokenizer(path):
    raw = open(path, "rb").read()
    pos, pieces, scores = 4, [], []
    while pos < len(raw):
        score, n = struct.unpack("<fi", raw[pos:pos + 8])
        pieces.append(raw[pos + 8:pos + 8 + n])
        scores.append(score)
        pos += 8 + n
    return pieces, scores


def llama2c_encode(text, pieces, scores):
    """run.c encode(t, text, bos=0, eos=0, tokens, &n)."""
    lookup = {p: i for i, p in enumerate(pieces)}
    tokens = []
    if text:
        tokens.append(lookup[b" "])
    for ch in text:
        b = ch.encode("utf-8")
        if b in lookup:
            tokens.append(lookup[b])
        else:
            tokens.extend(x + 3 for x in b)
    while True:
        best_score, best_id, best_idx = -1e10, -1, -1
        for i in range(len(tokens) - 1):
            id_ = lookup.get(pieces[tokens[i]] + pieces[tokens[i + 1]], -1)
            if id_ != -1 and scores[id_] > best_score:
                best_score, best_id, best_idx = scores[id_], id_, i
        if best_idx == -1:
            return tokens
        tokens[best_idx:best_idx + 2] = [best_id]


def corpus():
    fixed = [
        "Once upon a time, there was a little girl named Lily.",
        "She loved to play outside in the park with her big, red ball!",
        "The cat sat on the mat. The dog didn't.",
        "1234567890", "3.14159 and 2,718 and -42", "Tom had 3 apples; Sue had 12.",
        "  leading spaces", "trailing spaces   ", "many     spaces    inside", " ", "   ",
        "line one\nline two", "\n", "\n\nTwo blank lines before", "tab\there", "\ttabs\t\tand\tmore",
        "Hello, world! How are you? I'm fine: thanks.", "quotes \"double\" and 'single'",
        "(parentheses) [brackets] {braces} <angles>", "a-b_c/d\\e|f~g`h^i", "$100 @home #tag 50% &co *star",
        "中文", "你好，世界", "The word 猫 means cat.", "emoji 😀 and 🐱 and 🚀", "😀😀😀",
        "café naïve résumé", "Ünïcödé ÅÆØ", "ß ∑ ∞ ≠ ≤", "mixed: 中文 and English 123 😀",
        "Lily and Ben went to the beach. They saw a big fish!",
        "\"Can I have it?\" asked Tim. \"Yes,\" said Mom.",
        "THE END", "the end", "aaaaaaaaaaaaaaaa", "ababababab", "the the the the",
        "x", "I", "a.", "...", "!!!", "--", "--- --- ---",
    ]
    words = ["the", "a", "little", "girl", "boy", "dog", "happy", "sad", "ran", "jumped", "saw",
             "big", "tree", "sun", "Lily", "Tim", "Mom", "said", "played", "together", "friends",
             "42", "2024", "7", "中", "文", "😀", "🌞", "é", "!", ",", ".", "?", "\"", "'", "-", ":"]
    seps = [" ", " ", " ", "  ", "   ", "\n", "\t", ", ", ". ", ""]
    rng = random.Random(1234)
    lines = list(fixed)
    while len(lines) < 240:
        n = rng.randint(1, 14)
        s = "".join(rng.choice(words) + rng.choice(seps) for _ in range(n))
        if rng.random() < 0.2:
            s = " " * rng.randint(1, 4) + s
        lines.append(s)
    return lines


def run(args):
    r = subprocess.run(args, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args[:3])} ... exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode("utf-8")


def main():
    llm0 = sys.argv[1]
    pieces, scores = read_tokenizer(os.path.join(DATA, "tok512.bin"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stories260K")
        run([llm0, "convert", "--from", "llama2c", os.path.join(DATA, "stories260K.bin"), "--tokenizer",
             os.path.join(DATA, "tok512.bin"), "--output", out])
        tok = os.path.join(out, "tokenizer.json")
        lines = corpus()
        bad = 0
        for line in lines:
            want = llama2c_encode(line, pieces, scores)
            got = [int(x) for x in run([llm0, "tokenizer", "encode", "--tokenizer", tok, "--text", line]).split()]
            if got != want:
                bad += 1
                print(f"MISMATCH {line!r}: llm0 {got} llama2.c {want}")
                continue
            if not want:
                continue
            text = run([llm0, "tokenizer", "decode", "--tokenizer", tok, "--ids", " ".join(map(str, want))])
            if text.endswith("\n"):
                text = text[:-1]  # the CLI ends its output with a newline
            if text != line:
                bad += 1
                print(f"DECODE MISMATCH {line!r}: llm0 gives {text!r}")
        print(f"{len(lines) - bad}/{len(lines)} lines: llm0 = llama2.c encode (and decode round trip)")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
