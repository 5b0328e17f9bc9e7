#!/usr/bin/python3
"""Checksums of ggml's own dequantization of the tests/data/gguf_quant model files, so that
test_gguf_dequant compares llm0 with ggml's C code (dequantize_row_* through llama-quantize's F32
requantization) on every machine, also where llama-quantize is not built.

    LLAMA_QUANTIZE=.../llama-quantize GGUF_PY=.../gguf-py /usr/bin/python3 tests/gen/gen_gguf_dequant_sums.py

Writes tests/data/gguf_quant/ggml_f32_sums.json: {file: {tensor: checksum}}, the checksum of the
widened F32 bytes read as little-endian uint32 words w_i: sum_i w_i * (2 i + 1) mod 2^64 (every
single-word change moves it; test_gguf_dequant computes the same on llm0's floats).
"""
import json, os, subprocess, sys, tempfile
import numpy as np
sys.path.insert(0, os.environ["GGUF_PY"])
from gguf import GGUFReader

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
data = os.path.join(root, "tests", "data", "gguf_quant")
out = {}
for q in ["Q8_0", "Q4_0", "Q4_K_M", "Q6_K"]:
    with tempfile.TemporaryDirectory() as tmp:
        f32 = os.path.join(tmp, "f32.gguf")
        subprocess.run([os.environ["LLAMA_QUANTIZE"], "--allow-requantize", os.path.join(data, f"model-{q}.gguf"),
                        f32, "F32", "1"], check=True, capture_output=True)
        sums = {}
        for t in GGUFReader(f32).tensors:
            w = np.frombuffer(np.ascontiguousarray(t.data).tobytes(), dtype="<u4").astype(np.uint64)
            k = np.arange(w.size, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
            with np.errstate(over="ignore"):
                sums[t.name] = str(int(np.sum(w * k, dtype=np.uint64)))
        out[f"model-{q}.gguf"] = sums
with open(os.path.join(data, "ggml_f32_sums.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
