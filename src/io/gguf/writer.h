// GGUF v3 writer (format: ggml's docs/gguf.md, "File Structure"; reference implementation
// ggml/src/gguf.cpp). A file is: magic "GGUF", uint32 version 3, uint64 tensor count, uint64
// metadata count, the metadata key/values (gguf string key, uint32 value type, value), the tensor
// infos (name, uint32 n_dims, uint64 dims in ggml order = PyTorch order reversed, uint32 ggml
// type, uint64 offset into the data section), zero padding to `general.alignment` (uint32,
// default 32), then the tensor data, each tensor starting at a multiple of the alignment.
// Strings are uint64 length + UTF-8 bytes (no NUL). Everything is little-endian.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/gguf/ggml_type.h"

namespace llm0 {

/// GGUF metadata value types (gguf_type), with their on-disk codes.
enum class GgufType : uint32_t {
  UINT8 = 0, INT8 = 1, UINT16 = 2, INT16 = 3, UINT32 = 4, INT32 = 5, FLOAT32 = 6, BOOL = 7,
  STRING = 8, ARRAY = 9, UINT64 = 10, INT64 = 11, FLOAT64 = 12,
};

/// Default alignment of tensor data when the metadata has no `general.alignment` (bytes).
inline constexpr uint32_t kGgufDefaultAlignment = 32;

/// One metadata value. Integers of every width live in `u` (unsigned types) or `i` (signed and
/// BOOL as 0/1), floats in `f`, strings in `s`; an ARRAY holds elements all of `array_type`.
struct GgufValue {
  GgufType type = GgufType::UINT32;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  std::string s;
  GgufType array_type = GgufType::UINT8;
  std::vector<GgufValue> array;

  static GgufValue of_u8(uint8_t v);
  static GgufValue of_i8(int8_t v);
  static GgufValue of_u16(uint16_t v);
  static GgufValue of_i16(int16_t v);
  static GgufValue of_u32(uint32_t v);
  static GgufValue of_i32(int32_t v);
  static GgufValue of_u64(uint64_t v);
  static GgufValue of_i64(int64_t v);
  static GgufValue of_f32(float v);
  static GgufValue of_f64(double v);
  static GgufValue of_bool(bool v);
  static GgufValue of_string(std::string v);
  /// An ARRAY of `type`; every element must have that type (checked when written).
  static GgufValue of_array(GgufType type, std::vector<GgufValue> elements);
  static GgufValue of_strings(const std::vector<std::string>& v);
  static GgufValue of_i32s(const std::vector<int32_t>& v);
  bool operator==(const GgufValue& o) const;
};

/// A tensor to write. `shape` is in PyTorch order (outermost first); `bytes` is the row-major
/// data already converted to `type` (numel * 4 bytes for F32, numel * 2 for F16).
struct GgufTensor {
  std::string name;
  std::vector<int64_t> shape;
  GgmlType type = GgmlType::F32;
  std::vector<uint8_t> bytes;
};

/// Collects metadata and tensors in insertion order and writes one GGUF v3 file.
class GgufWriter {
 public:
  /// Adds a key. Throws llm0::Error on a duplicate or empty key, or a `general.alignment` that is
  /// not a UINT32 power of two.
  void add(const std::string& key, GgufValue value);
  /// Adds a tensor converting `data` (shape.numel() row-major floats) to `type` (F32, F16 or
  /// BF16; fp16: round to nearest even). Throws llm0::Error on a quantized type (the writer does
  /// not quantize), a duplicate name, more than 4 dims, negative extents, an element or byte
  /// count beyond int64 (a zero extent makes 0 elements whatever the others).
  void add_tensor(const std::string& name, std::vector<int64_t> shape, GgmlType type,
                  const float* data);
  /// Writes the file atomically (path + ".tmp", fsync, rename): `path` is never half-written.
  /// Throws llm0::Error naming the path if it cannot be written, or a malformed ARRAY.
  void write(const std::string& path) const;
  /// The alignment in force: `general.alignment` if added, else kGgufDefaultAlignment.
  uint32_t alignment() const;

 private:
  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::vector<GgufTensor> tensors_;
};

}  // namespace llm0
