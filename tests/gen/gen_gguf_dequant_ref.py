#!/usr/bin/python3
"""Writes tests/data/gguf_quant/dequant_ref.gguf: for each quantized type T of Q8_0, Q4_0, Q4_K
and Q6_K, a tensor "T" of random blocks stored as T and a tensor "T.ref" (F32, same shape) holding
the values that llama.cpp's own Python package, gguf-py (gguf/quants.py, numpy, vectorised over
bit fields), dequantizes them to. tests/test_gguf_dequant.cpp reads the file with llm0's reader
and requires to_float() of "T" to equal "T.ref" bitwise.

The blocks are uniformly random bytes, so every bit of every field (quants, 6-bit scales and mins
with their split high bits, int8 scales) takes both values; only the fp16 scale fields (d, dmin)
are replaced by random *finite* halves (any sign, normal and subnormal), since a NaN or infinite
scale has no value to compare. Every product in these formats is exact in float32 and Q4_K has
one rounding (d*sc*q - dmin*m; see src/io/gguf/dequant.h), so numpy's order of operations gives
the same bits as ggml's.

How the file was made (run once, from the repository root; the output is committed):
    apt-get install python3-numpy         # Debian bookworm: 1.24.2
    scripts/build_llama_bench.sh llama-quantize   # unpacks the bundled llama.cpp source
    GGUF_PY=../llama.cpp-bench/src/gguf-py /usr/bin/python3 tests/gen/gen_gguf_dequant_ref.py
gguf-py is that of the llama.cpp commit bundled in node-llama-cpp 3.21.1 (bench/peers; commit
80fb11ac73e66d89eae2c6a91d8a77428fa733ed), MIT licence.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.environ.get("GGUF_PY", "../llama.cpp-bench/src/gguf-py"))
import gguf  # noqa: E402
from gguf.quants import dequantize  # noqa: E402

Q = gguf.GGMLQuantizationType
# type -> (rows, blocks per row, byte offsets of the fp16 scale fields within a block)
TYPES = {
    Q.Q8_0: (3, 2, [0]),
    Q.Q4_0: (3, 3, [0]),
    Q.Q4_K: (3, 2, [0, 2]),
    Q.Q6_K: (3, 2, [208]),
}
OUT = "tests/data/gguf_quant/dequant_ref.gguf"


def random_finite_halves(rng, n):
    h = rng.integers(0, 1 << 16, size=n, dtype=np.uint32)
    exponent = (h >> 10) & 0x1F
    h = np.where(exponent == 0x1F, h & ~np.uint32(0x4000), h)  # exponent 31 -> 15: finite
    return h.astype(np.uint16)


def main():
    rng = np.random.default_rng(20261201)
    w = gguf.GGUFWriter(OUT, arch="llm0-test")
    for qtype, (rows, blocks, half_offsets) in TYPES.items():
        block_size, type_size = gguf.GGML_QUANT_SIZES[qtype]
        raw = rng.integers(0, 256, size=(rows, blocks, type_size), dtype=np.uint8)
        for off in half_offsets:
            raw[:, :, off:off + 2] = random_finite_halves(rng, rows * blocks).view(np.uint8).reshape(rows, blocks, 2)
        raw = raw.reshape(rows, blocks * type_size)
        ref = dequantize(raw, qtype).astype(np.float32)
        assert ref.shape == (rows, blocks * block_size) and np.isfinite(ref).all()
        w.add_tensor(qtype.name, raw, raw_dtype=qtype)
        w.add_tensor(qtype.name + ".ref", ref)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
