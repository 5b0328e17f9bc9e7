#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses: tests/fuzz/corpus/<harness>/seed-*.

Made from the project's own files (configs/, tests/data/pretokenize_goldens.json,
data/teaching-world.json) and the malformed cases of the unit tests (test_safetensors.cpp,
test_npy.cpp, test_gguf.cpp, test_utf8_stream.cpp, test_sampler.cpp), written byte by byte with
the standard library (no llm0 code: the seeds do not depend on the readers they test). Run once
from the repository root; rerunning rewrites the same seed-* files. Inputs a fuzzer failed on are
added beside them as crash-* files (never rewritten here)."""
import json, math, os, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")


def put(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def f32s(v): return struct.pack("<%df" % len(v), *v)


# --- safetensors: 8-byte LE header length, JSON header, data -----------------------------------
def st(header, data=b"", n=None):
    h = header.encode()
    return struct.pack("<Q", len(h) if n is None else n) + h + data

ok = '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
put("safetensors", "f32", st(ok, f32s([2.75])))
put("safetensors", "mixed", st('{"__metadata__":{"format":"pt"},"w.q":{"dtype":"F16","shape":[2,3],'
    '"data_offsets":[0,12]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[12,16]},'
    '"e0":{"dtype":"F32","shape":[0,3],"data_offsets":[16,16]}}  ',
    struct.pack("<6H", 0x3c00, 0xc100, 0x7bff, 0x0001, 0x8000, 0x3555) + struct.pack("<2H", 0x3f80, 0xff80)))
put("safetensors", "empty", st("{}"))
put("safetensors", "short", b"\x05\x00\x00")
put("safetensors", "len-beyond", st(ok, f32s([1]), 1000))
put("safetensors", "len-huge", st(ok, f32s([1]), 2**64 - 1))
put("safetensors", "bad-json", st('{"a": '))
put("safetensors", "bad-dtype", st('{"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}', bytes(16)))
put("safetensors", "overflow", st('{"w":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}}', bytes(8)))
put("safetensors", "overlap", st('{"first":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},'
    '"second":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}', bytes(24)))
put("safetensors", "past-end", st('{"w":{"dtype":"F32","shape":[5],"data_offsets":[0,20]}}', bytes(16)))

# --- npy ------------------------------------------------------------------------------------------
def npy(header, data, major=1):
    h = header.encode()
    lenfmt = "<H" if major == 1 else "<I"
    pre = 10 if major == 1 else 12
    pad = (64 - (pre + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes([major, 0]) + struct.pack(lenfmt, len(h)) + h + data

H = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }"
put("npy", "2x3", npy(H % "(2, 3)", f32s([1, 2, 3, 4, 5, 6])))
put("npy", "scalar", npy(H % "()", f32s([math.pi])))
put("npy", "empty", npy(H % "(0, 4)", b""))
put("npy", "v2", npy(H % "(2,)", f32s([-1, float("inf")]), major=2))
put("npy", "v3", npy(H % "(1,)", f32s([0.5]), major=3))
put("npy", "f8", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", bytes(8)))
put("npy", "fortran", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", f32s([1, 2])))
put("npy", "truncated", npy(H % "(3,)", f32s([1, 2])))
put("npy", "overflow", npy(H % "(4294967296, 4294967296)", f32s([1, 2])))
put("npy", "bad-magic", b"\x93NUMPX\x01\x00")

# --- gguf: v3, every metadata type, F32 and F16 tensors -------------------------------------------
def gstr(s): b = s.encode(); return struct.pack("<Q", len(b)) + b
def gkv(key, t, payload): return gstr(key) + struct.pack("<I", t) + payload

def gguf(kvs, tensors, align=32, version=3):
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs)
    data, infos = b"", b""
    for name, dims, typ, payload in tensors:
        off = (len(data) + align - 1) // align * align
        data = data.ljust(off, b"\0") + payload
        infos += gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", typ, off)
    out += infos
    out = out.ljust((len(out) + align - 1) // align * align, b"\0")
    return out + data

kvs = [gkv("general.architecture", 8, gstr("llama")), gkv("general.alignment", 4, struct.pack("<I", 64)),
       gkv("u8", 0, b"\x07"), gkv("i8", 1, b"\xf9"), gkv("u16", 2, struct.pack("<H", 65535)),
       gkv("i16", 3, struct.pack("<h", -3)), gkv("i32", 5, struct.pack("<i", -70000)),
       gkv("f32", 6, f32s([1.5])), gkv("bool", 7, b"\x01"), gkv("u64", 10, struct.pack("<Q", 2**40)),
       gkv("i64", 11, struct.pack("<q", -2**40)), gkv("f64", 12, struct.pack("<d", -0.25)),
       gkv("tokens", 9, struct.pack("<IQ", 8, 2) + gstr("a") + gstr("<|endoftext|>")),
       gkv("nested", 9, struct.pack("<IQ", 9, 1) + struct.pack("<IQ", 5, 2) + struct.pack("<ii", 1, -1))]
tensors = [("token_embd.weight", [3, 2], 0, f32s([1, 2, 3, 4, 5, 6])),
           ("blk.0.attn_q.weight", [2, 2], 1, struct.pack("<4H", 0x3c00, 0xc100, 0x7bff, 0x0001))]
good = gguf(kvs, tensors, align=64)
put("gguf", "all-types", good)
put("gguf", "default-align", gguf(kvs[:1], tensors))
put("gguf", "truncated", good[:-3])
put("gguf", "big-endian", b"GGUF" + struct.pack(">I", 3) + good[8:64])
put("gguf", "bad-align", gguf([gkv("general.alignment", 5, struct.pack("<i", 64))], tensors))
put("gguf", "huge-count", b"GGUF" + struct.pack("<IQQ", 3, 2**62, 2**62))
put("gguf", "bad-magic", b"GGUX" + good[4:40])
# quantized: one block each of Q8_0 (8), Q4_0 (2), Q4_K (12), Q6_K (14) with fp16 scale 1.0 at the
# format's offset; a Q5_K (13) tensor refused by name; Q4_K rows of 128 (half a block) refused
def block(size, half_at): b = bytearray(range(size)); b[half_at:half_at + 2] = struct.pack("<H", 0x3c00); return bytes(b)
quant = [("q8_0", [32], 8, block(34, 0)), ("q4_0", [32], 2, block(18, 0)),
         ("q4_k", [256], 12, block(144, 0)), ("q6_k", [256], 14, block(210, 208))]
put("gguf", "quantized", gguf(kvs[:1], quant))
put("gguf", "q5_k", gguf(kvs[:1], [("blk.0.attn_q.weight", [256], 13, bytes(176))]))
put("gguf", "partial-block", gguf(kvs[:1], [("output.weight", [128, 2], 12, bytes(144))]))

# --- gguf import: a 1-layer llama (C 4, 2 heads of 2, 1 KV head, F 4) with a SentencePiece
# ("llama") and a byte-level ("gpt2") tokenizer, as llm0's exporter writes them -------------------
def u32kv(key, v): return gkv(key, 4, struct.pack("<I", v))
def f32kv(key, v): return gkv(key, 6, f32s([v]))
def strs(key, vals): return gkv(key, 9, struct.pack("<IQ", 8, len(vals)) + b"".join(gstr(v) for v in vals))
def i32s(key, vals): return gkv(key, 9, struct.pack("<IQ", 5, len(vals)) + struct.pack("<%di" % len(vals), *vals))

def tiny_llama(tok_kvs, V):
    kvs = [gkv("general.architecture", 8, gstr("llama")), u32kv("llama.embedding_length", 4),
           u32kv("llama.block_count", 1), u32kv("llama.attention.head_count", 2),
           u32kv("llama.attention.head_count_kv", 1), u32kv("llama.context_length", 16),
           u32kv("llama.feed_forward_length", 4), f32kv("llama.attention.layer_norm_rms_epsilon", 1e-5),
           f32kv("llama.rope.freq_base", 10000.0)] + tok_kvs
    w = lambda n: f32s([(i % 7 - 3) / 4 for i in range(n)])
    ts = [("token_embd.weight", [4, V], 0, w(4 * V)), ("output_norm.weight", [4], 0, w(4)),
          ("blk.0.attn_norm.weight", [4], 0, w(4)), ("blk.0.attn_q.weight", [4, 4], 0, w(16)),
          ("blk.0.attn_k.weight", [4, 2], 0, w(8)), ("blk.0.attn_v.weight", [4, 2], 0, w(8)),
          ("blk.0.attn_output.weight", [4, 4], 0, w(16)), ("blk.0.ffn_norm.weight", [4], 0, w(4)),
          ("blk.0.ffn_gate.weight", [4, 4], 0, w(16)), ("blk.0.ffn_up.weight", [4, 4], 0, w(16)),
          ("blk.0.ffn_down.weight", [4, 4], 0, w(16))]
    return gguf(kvs, ts)

sp = ["<unk>", "<s>", "</s>", "<0x0A>", "\u2581a", "b", "\u2581ab"]
put("gguf", "import-llama-spm", tiny_llama([
    gkv("tokenizer.ggml.model", 8, gstr("llama")), strs("tokenizer.ggml.tokens", sp),
    gkv("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, len(sp)) + f32s([0, 0, 0, 0, -2, -3, -1])),
    i32s("tokenizer.ggml.token_type", [2, 3, 3, 6, 1, 1, 1]), u32kv("tokenizer.ggml.bos_token_id", 1),
    u32kv("tokenizer.ggml.eos_token_id", 2), gkv("tokenizer.ggml.add_bos_token", 7, b"\x01")], len(sp)))
bl = ["a", "b", "ab", "\u0120", "\u0120a", "<|endoftext|>"]
put("gguf", "import-llama-gpt2", tiny_llama([
    gkv("tokenizer.ggml.model", 8, gstr("gpt2")), gkv("tokenizer.ggml.pre", 8, gstr("gpt-2")),
    strs("tokenizer.ggml.tokens", bl), i32s("tokenizer.ggml.token_type", [1, 1, 1, 1, 1, 3]),
    strs("tokenizer.ggml.merges", ["a b", "\u0120 a"]), u32kv("tokenizer.ggml.eos_token_id", 5)], len(bl)))

# --- config.json: the project's presets and reference configs, and broken ones -------------------
for d in ("configs", os.path.join("configs", "reference")):
    for f in sorted(os.listdir(os.path.join(ROOT, d))):
        if f.endswith(".json"):
            put("config", f, open(os.path.join(ROOT, d, f), "rb").read())
tiny = json.load(open(os.path.join(ROOT, "configs", "lesson-tiny.json")))
for name, change in [("no-heads", {"num_attention_heads": None}), ("heads-indivisible", {"num_key_value_heads": 3}),
                     ("negative", {"hidden_size": -64}), ("huge", {"vocab_size": 2**40}),
                     ("string", {"head_dim": "16"}), ("layer-types", {"layer_types": ["full_attention", "linear_attention"]}),
                     ("sliding", {"sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"]})]:
    c = dict(tiny); c.update(change)
    put("config", name + ".json", json.dumps({k: v for k, v in c.items() if v is not None}))
put("config", "not-object.json", "[1, 2]")
put("config", "bad.json", '{"vocab_size": ')

# --- tokenizer.json: byte-level BPE as Hugging Face writes it ------------------------------------
def bytes_to_unicode():  # GPT-2's encoder.py
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs: bs.append(b); cs.append(256 + n); n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}

b2u = bytes_to_unicode()
def bl(s): return "".join(b2u[b] for b in s.encode())
vocab = {b2u[b]: i for i, b in enumerate(range(256))}
merges = []
for a, b in [("t", "h"), ("th", "e"), (" ", "the"), ("1", "2"), ("e", "r")]:
    vocab[bl(a + b)] = len(vocab); merges.append(bl(a) + " " + bl(b))
goldens = json.load(open(os.path.join(ROOT, "tests", "data", "pretokenize_goldens.json")))
byte_level = lambda rx: {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": rx}
split = lambda name: {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": goldens["patterns"][name]}, "behavior": "Isolated", "invert": False},
    byte_level(False)]}
def tok(pre, normalizer=None, merges=merges, extra=None):
    j = {"version": "1.0", "added_tokens": [{"id": len(vocab), "content": "<|endoftext|>", "special": True}],
         "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": None, "decoder": byte_level(True),
         "model": {"type": "BPE", "dropout": None, "unk_token": None, "ignore_merges": False,
                   "vocab": vocab, "merges": merges}}
    j.update(extra or {})
    return json.dumps(j, ensure_ascii=False)
put("tokenizer_json", "gpt2", tok(byte_level(True)))
put("tokenizer_json", "llama3", tok(split("llama3")))
put("tokenizer_json", "qwen2-nfc", tok(split("qwen2"), {"type": "NFC"}))
put("tokenizer_json", "digits", tok({"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True}, byte_level(True)]}))
put("tokenizer_json", "pair-merges", tok(byte_level(True), merges=[m.split(" ") for m in merges]))
put("tokenizer_json", "removed-invert", tok({"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": True}, byte_level(False)]}))
put("tokenizer_json", "unsupported-model", tok(byte_level(True), extra={"model": {"type": "WordPiece", "vocab": {}}}))
put("tokenizer_json", "unsupported-pre", tok({"type": "Metaspace", "replacement": "▁"}))
put("tokenizer_json", "bad-merge", tok(byte_level(True), merges=["t"]))

# --- nesting depth: the JSON readers' limit (kMaxJsonDepth = 128, src/core/json_parse.h), at it and
# one level past it (refused), in each harness that reads JSON ----------------------------------
DEPTH = 128
def arrays(n): return "[" * n + "1" + "]" * n
def objects(n): return '{"a": ' * n + "1" + "}" * n
for n in (DEPTH - 1, DEPTH):  # inside the outer object: DEPTH and DEPTH + 1 levels
    c = dict(tiny); c["deep"] = None
    put("config", "nest-%d.json" % (n + 1), json.dumps(c).replace("null", arrays(n)))
    c = dict(tiny); c["rope_scaling"] = None
    put("config", "nest-rope-%d.json" % (n + 1), json.dumps(c).replace("null", objects(n)))
    put("tokenizer_json", "nest-%d" % (n + 1), tok(byte_level(True), extra={"deep": None}).replace('"deep": null', '"deep": ' + arrays(n)))
    put("safetensors", "nest-%d" % (n + 1), st('{"__metadata__": {"a": "b"}, "deep": %s}' % arrays(n)))

# --- bpe: first byte = tokenizer (0 llm0, 1 GPT-2, 2 Llama-3, 3 Qwen2 NFC) and mode (bit 7: decode)
for i, c in enumerate(goldens["cases"]):
    put("bpe", "%02d-%s" % (i, c["name"]), bytes([i % 4]) + c["text"].encode())
put("bpe", "invalid-utf8", b"\x02ab\xff\xc0\xe2\x82 \xed\xa0\x80 12345678 <|endoftext|>x")
put("bpe", "nfc", b"\x03cafe\xcc\x81 \xe1\x84\x80\xe1\x85\xa1 A\xcc\x8a")
put("bpe", "decode", b"\x80" + struct.pack("<8H", 4, 5, 260, 300, 0, 3, 700, 65535))

# --- utf8_stream: 8 bytes of chunk lengths, then the bytes ----------------------------------------
for i, c in enumerate(goldens["cases"][:6]):
    put("utf8_stream", c["name"], struct.pack("<Q", 0x123456789ABCDEF ^ (i * 0x1111)) + c["text"].encode())
put("utf8_stream", "invalid", struct.pack("<Q", 0x2492492492492492) +
    b"\x80 \xc0\xaf \xe0\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xf5 \xe2\x82 \xf0\x9f\x98")
put("utf8_stream", "byte-at-a-time", struct.pack("<Q", 0x2492492492492492) + "é中😀".encode())

# --- sampler: temperature, top_k, top_p, min_p, repetition_penalty (f64, i32, f64, f64, f64),
# seed (u64), history length (u8), logits (f32...) ----------------------------------------------
def sampler(t, k, p, mp, r, seed, nh, logits):
    return struct.pack("<didddQB", t, k, p, mp, r, seed, nh) + f32s(logits)
L = [1.0, 3.0, -2.0, 3.0, 0.5, -1e30, 2.5]
put("sampler", "default", sampler(1.0, 0, 1.0, 0.0, 1.0, 42, 0, L))
put("sampler", "greedy", sampler(0.0, 0, 1.0, 0.0, 1.0, 0, 0, L))
put("sampler", "all", sampler(0.7, 3, 0.9, 0.05, 1.3, 7, 5, L))
put("sampler", "top-k-1", sampler(2.0, 1, 1.0, 0.0, 1.0, 1, 0, L))
put("sampler", "inf-nan", sampler(1.0, 0, 0.5, 0.0, 1.1, 3, 3, [float("nan"), float("inf"), -float("inf"), 1.0, float("inf")]))
put("sampler", "all-minus-inf", sampler(1.0, 0, 1.0, 0.0, 1.0, 3, 0, [-float("inf"), float("nan")]))
put("sampler", "tiny-t", sampler(1e-300, 0, 0.3, 0.9, 1.0, 9, 0, [1e-30, 2e-30, 0.0, -3e38, 3e38]))
put("sampler", "bad-flags", sampler(float("nan"), -1, 0.0, 2.0, float("inf"), 0, 0, L))
print("corpus written to", OUT)
