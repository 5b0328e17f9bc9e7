#!/usr/bin/python3
"""Writes a copy of a GGUF file with every tensor widened to F32 by llama.cpp's own Python package
gguf-py (gguf/quants.py dequantize: Q8_0, Q4_0, Q4_K, Q6_K, ...), metadata copied as it is
(general.file_type set to 0, all F32). tests/peer/test_gguf_quant_parity.sh runs llama.cpp on the
result: ggml's float32 kernels on the dequantized weights, no activation quantization.

    GGUF_PY=.../gguf-py /usr/bin/python3 tests/peer/gguf_widen.py IN.gguf OUT.gguf
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.environ["GGUF_PY"])
import gguf  # noqa: E402
from gguf.quants import dequantize  # noqa: E402


def main(src, dst):
    reader = gguf.GGUFReader(src)
    writer = gguf.GGUFWriter(dst, arch=reader.fields["general.architecture"].contents())
    for field in reader.fields.values():
        if field.name == "general.architecture" or field.name.startswith("GGUF."):
            continue  # written by GGUFWriter itself
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = 0 if field.name == "general.file_type" else field.contents()
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    for t in reader.tensors:  # numpy shape = ggml dims reversed, as GGUFWriter expects
        writer.add_tensor(t.name, np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
