#!/usr/bin/python3
"""Writes tests/data/pretokenize_goldens.json: the pieces that the Split pre-tokenizers of the
GPT-2, Llama-3 and Qwen2 tokenizer.json files make of tricky texts, computed by a second regex
implementation that knows Unicode properties: Debian's python3-regex module (mrab-regex).

How the file was made (run once, from the repository root; the output is committed):
    apt-get install python3-regex        # Debian bookworm: 0.1.20221031, Unicode 15.0
    /usr/bin/python3 tests/gen/gen_pretokenize_goldens.py
The pieces follow Hugging Face tokenizers' Split(behavior=Isolated, invert=false): every regex
match and every stretch between two matches is a piece, in order, empty ones dropped.
tests/test_tokenizer_pre_tokenizers.cpp reads the file and compares llm0's PCRE2 splits.
"""
import json
import os

import regex

PATTERNS = {
    # huggingface/tokenizers src/pre_tokenizers/byte_level.rs (ByteLevel use_regex=true; GPT-2).
    "gpt2": r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    # meta-llama/Meta-Llama-3-8B tokenizer.json, pre_tokenizer.pretokenizers[0].pattern.Regex.
    "llama3": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    # Qwen/Qwen2-0.5B tokenizer.json, pre_tokenizer.pretokenizers[0].pattern.Regex.
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
}

TEXTS = [
    ("english", "Hello world! The quick brown fox jumps over the lazy dog."),
    ("contractions", "I'm sure you're right, it's fine; we'll see what they've done, I'd say. DON'T SHE'S 'S 'll"),
    ("numbers", "In 2024 pay $1234567.89 or 12,345,678 now: 0000001 x² ½ Ⅻ ٣٤٥ 1e-10"),
    ("cjk_brackets", "「春眠不觉晓」（孟浩然）《春晓》【注】床前明月光，疑是地上霜。"),
    ("japanese_korean", "カタカナ、ひらがな。漢字2024年です。한국어 텍스트!"),
    ("emoji", "I ❤️ llm0 😀😀 👨‍👩‍👧 🇫🇷 ok!🚀🚀"),
    ("whitespace_runs", "a  b   c\t\td\n\ne \n  \n f   "),
    ("crlf", "\r\n\r\nline one\r\n  line two  \n\n\n"),
    ("leading_spaces", "   three spaces first"),
    ("punctuation", "C++ & Rust... (yes!) --> [a]{b} ~~~ \"quoted\" 'single'"),
    ("accents", "Ünïcödé façade naïve — “quotes” ‘single’ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
    ("code", "def f(x):\n    return x**2 + 10_000  # comment\n"),
    ("arabic", "مرحبا بالعالم 123"),
    # No-break space, ideographic space, line separator, NEL: \s in all three engines. (U+180E
    # is left out on purpose: PCRE2 still counts it as \s, Unicode >= 6.3 and Oniguruma do not.)
    ("unicode_spaces", "a\u00a0b\u3000\u3000c\u2028d\u0085e \u00a0 f"),
]


def isolated_pieces(pattern, text):
    pieces, prev = [], 0
    for m in regex.finditer(pattern, text):
        if m.start() != prev:
            pieces.append(text[prev:m.start()])
        if m.end() != m.start():
            pieces.append(m.group(0))
        prev = m.end()
    if prev != len(text):
        pieces.append(text[prev:])
    return pieces


def main():
    cases = []
    for name, text in TEXTS:
        cases.append({"name": name, "text": text,
                      "pieces": {k: isolated_pieces(p, text) for k, p in PATTERNS.items()}})
    out = {"generator": "tests/gen/gen_pretokenize_goldens.py",
           "regex_module": regex.__version__, "patterns": PATTERNS, "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "..", "data", "pretokenize_goldens.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
