// safetensors reader and writer (format: https://github.com/huggingface/safetensors, README
// "Format"): 8-byte little-endian header length N, N bytes of JSON
// {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}},
// then the data section; offsets are bytes relative to the start of the data section.
// Tensors are row-major (outermost dimension first), stored little-endian.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace llm0 {

/// Element types llm0 reads (all three) and writes (all three; F32 is the default).
enum class DType { F32, F16, BF16 };

/// The safetensors dtype string: "F32", "F16" or "BF16".
const char* dtype_name(DType dtype);
/// Bytes per element: 4, 2 or 2.
int dtype_size(DType dtype);

/// Largest JSON header read_safetensors accepts (10^8 bytes, the reference Rust implementation's
/// MAX_HEADER_SIZE), checked before anything is allocated, so a length near 2^64 is refused.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

/// One tensor of a file; `values` holds numel() floats converted to float32, row-major.
struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::F32;  // the dtype stored in the file
  Shape shape;
  std::vector<float> values;
};

/// A whole file: tensors by name and the free-form "__metadata__" string map.
struct SafetensorsFile {
  std::map<std::string, SafetensorsEntry> tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads the whole file; F32, F16 and BF16 tensors become float32.
/// Throws llm0::Error naming the file (and the tensor or field) on anything malformed: file
/// shorter than 8 bytes, header length above kSafetensorsMaxHeaderBytes or beyond the file,
/// header not a JSON object, unsupported dtype, shape not a list of non-negative integers,
/// data_offsets not [begin, end] with begin <= end, end - begin != numel * dtype size, offsets
/// past the end of the data (truncated file), overlapping tensors, non-string metadata, and a
/// data section the tensors do not fill exactly (as the reference implementation requires: in
/// data_offsets order each tensor starts where the ones before end, the first at 0, and the last
/// ends at the end of the file), naming the tensor after a hole or the bytes after the last one.
/// Accepted: any header length (not only multiples of 8), trailing spaces after the JSON,
/// zero-element tensors, empty or absent metadata.
SafetensorsFile read_safetensors(const std::string& path);

/// A tensor to write: `data` points to shape.numel() row-major floats (may be null if 0).
struct TensorRef {
  std::string name;
  Shape shape;
  const float* data = nullptr;
};

/// Writes `tensors` in the given order, converted to `dtype` (round to nearest even for F16 and
/// BF16), with `metadata` as "__metadata__" (omitted when empty). The header is padded with
/// spaces to a multiple of 8 bytes so the data section stays aligned. The bytes go to
/// path + ".tmp", which is fsynced and renamed to path: `path` is never half-written.
/// Throws llm0::Error on duplicate or reserved ("__metadata__") names, negative extents,
/// null data with numel > 0, or when the directory is not writable.
void write_safetensors(const std::string& path, const std::vector<TensorRef>& tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       DType dtype = DType::F32);

/// write_safetensors with a dtype per tensor (`dtypes[i]` for `tensors[i]`; mixed-dtype files
/// such as a GGUF import keeping F16/BF16 matrices beside F32 norms). Throws llm0::Error as
/// write_safetensors does, and when the two lists differ in length.
void write_safetensors_mixed(const std::string& path, const std::vector<TensorRef>& tensors,
                             const std::vector<DType>& dtypes,
                             const std::map<std::string, std::string>& metadata = {});

}  // namespace llm0
