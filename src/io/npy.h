// NumPy .npy files (format spec: numpy/lib/format.py, "NPY format" NEP 1): magic "\x93NUMPY",
// version, little-endian header length, a Python-literal dict header
// {'descr': '<f4', 'fortran_order': False, 'shape': (d0, d1, ...), } padded with spaces and
// ending in '\n', then the raw data. llm0 writes and reads float32 C-order (row-major) arrays:
// logits and activations for other tools.
#pragma once
#include <string>

#include "core/tensor.h"

namespace llm0 {

/// Writes shape.numel() row-major floats from `data` as a .npy v1.0 file ('<f4', C order); the
/// header is padded so the data starts at a multiple of 64 bytes. Written to path + ".tmp",
/// fsynced and renamed, so `path` is never half-written. Throws llm0::Error on a negative
/// extent, null data with numel > 0, or an unwritable directory.
void write_npy(const std::string& path, const float* data, const Shape& shape);

/// Reads a .npy file (versions 1.0, 2.0, 3.0) holding little-endian float32 ('<f4') in C order
/// into an owning Tensor of the stored shape (a 0-d array gives shape []). Throws llm0::Error
/// naming the file and the problem: bad magic or version, malformed header, other dtypes,
/// fortran_order True, truncated data or trailing bytes.
Tensor read_npy(const std::string& path);

}  // namespace llm0
