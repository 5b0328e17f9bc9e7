// GGUF v3 reader (format: ggml's docs/gguf.md; the layout is described in io/gguf/writer.h).
// Reads the whole file into memory: metadata of every type (nested arrays included), tensor
// infos and data (F32, F16, BF16 and the quantized Q8_0, Q4_0, Q4_K, Q6_K; io/gguf/ggml_type.h). Little-endian files only; the data alignment comes from `general.alignment`
// (must be UINT32) or defaults to 32. Used by tests and tools to check exported files.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/gguf/writer.h"

namespace llm0 {

/// One tensor info plus its bytes. `dims` is in ggml order (innermost first, PyTorch reversed).
struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;        // bytes from the start of the data section
  std::vector<uint8_t> bytes;  // ggml_nbytes(type, numel): numel / block size * bytes per block

  uint64_t numel() const;
  /// PyTorch-order shape (dims reversed).
  std::vector<int64_t> shape() const;
  /// The numel() elements as float32, row-major in PyTorch order: F16 and BF16 widened exactly,
  /// Q8_0, Q4_0, Q4_K and Q6_K dequantized (io/gguf/dequant.h, bitwise ggml's dequantize_row_*).
  /// Throws llm0::Error naming the tensor when `bytes` does not hold numel elements of `type`.
  std::vector<float> to_float() const;
};

/// A parsed file.
struct GgufFile {
  uint32_t version = 0;
  uint32_t alignment = kGgufDefaultAlignment;
  std::vector<std::pair<std::string, GgufValue>> metadata;  // file order
  std::vector<GgufTensorInfo> tensors;                       // file order

  /// The value of `key`, or nullptr.
  const GgufValue* find(const std::string& key) const;
  /// The value of `key`. Throws llm0::Error naming the key if absent.
  const GgufValue& at(const std::string& key) const;
  /// The tensor `name`, or nullptr.
  const GgufTensorInfo* tensor(const std::string& name) const;
};

/// Reads a GGUF file. Throws llm0::Error naming the file and what is wrong: unreadable file, bad
/// magic, a big-endian file (version bytes swapped), version other than 2 or 3, an empty key or
/// tensor name (GgufWriter refuses both too), an unknown value type, a tensor type other than
/// F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K (named: "tensor 'blk.0.attn_q.weight' has type Q5_K,
/// which llm0 does not read; supported: ..."), a quantized tensor whose innermost dim is not a
/// multiple of its block size, a count, string or array length beyond the remaining bytes (checked before
/// allocating), general.alignment not a UINT32 power of two, more than 4 dims, a tensor offset
/// not a multiple of the alignment, data past the end (truncated file), and a data section the
/// tensors do not tile as ggml's gguf_init_from_file requires: in file order each tensor starts
/// where the one before ends rounded up to the alignment (the first at 0; its byte size is its
/// type's block size times its shape), and the file ends at the last tensor's end or within its
/// padding. So a wrong tensor count, offset, type or shape is refused naming the first tensor
/// that does not fit ("GGUF tensor 'b' starts at data offset 4096, but the tensor before it, 'a',
/// Q4_0 [64, 64] (2304 bytes), ends at 2304 ..."), or the bytes left over after the last one.
/// (A shape change that keeps a tensor's padded size, e.g. F32 [7] -> [6] at 32-byte alignment,
/// still tiles: the importer checks each shape against the model's config.)
GgufFile read_gguf(const std::string& path);

}  // namespace llm0
