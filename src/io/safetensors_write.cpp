// safetensors writer: header in the caller's tensor order, padded with spaces to a multiple of
// 8 bytes, then each tensor's data converted to the chosen dtype; written atomically through
// AtomicFile (tmp + fsync + rename). See safetensors.h.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/check.h"
#include "core/half.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

// Validates the tensors and builds the JSON header text (padded to a multiple of 8 bytes).
std::string build_header(const std::string& path, const std::vector<TensorRef>& tensors,
                         const std::map<std::string, std::string>& metadata,
                         const std::vector<DType>& dtypes) {
  ordered_json h = ordered_json::object();
  if (!metadata.empty()) {
    h["__metadata__"] = ordered_json::object();
    for (const auto& [k, v] : metadata) h["__metadata__"][k] = v;
  }
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorRef& t = tensors[i];
    const DType dtype = dtypes[i];
    LLM0_CHECK(t.name != "__metadata__",
               "write_safetensors '{}': tensor name '__metadata__' is reserved", path);
    LLM0_CHECK(seen.insert(t.name).second, "write_safetensors '{}': duplicate tensor '{}'", path,
               t.name);
    for (int64_t d : t.shape.dims)
      LLM0_CHECK(d >= 0, "write_safetensors '{}': tensor '{}': negative extent in shape {}", path,
                 t.name, t.shape.str());
    LLM0_CHECK(t.data != nullptr || t.shape.numel() == 0,
               "write_safetensors '{}': tensor '{}': null data", path, t.name);
    const uint64_t bytes =
        static_cast<uint64_t>(t.shape.numel()) * static_cast<uint64_t>(dtype_size(dtype));
    h[t.name] = {{"dtype", dtype_name(dtype)},
                 {"shape", t.shape.dims},
                 {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  try {
    text = h.dump();
  } catch (const ordered_json::exception& e) {  // e.g. a name that is not valid UTF-8
    LLM0_FAIL("write_safetensors '{}': cannot encode header: {}", path, e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

// Writes n floats from src converted to dtype, in bounded chunks.
void write_values(AtomicFile& f, const float* src, size_t n, DType dtype) {
  if (dtype == DType::F32) {
    f.write(src, n * sizeof(float));
    return;
  }
  constexpr size_t kChunk = 1 << 16;
  std::vector<uint16_t> buf(std::min(n, kChunk));
  for (size_t at = 0; at < n; at += kChunk) {
    const size_t m = std::min(kChunk, n - at);
    for (size_t i = 0; i < m; ++i)
      buf[i] = dtype == DType::BF16 ? float_to_bf16(src[at + i]) : float_to_fp16(src[at + i]);
    f.write(buf.data(), m * sizeof(uint16_t));
  }
}

}  // namespace

void write_safetensors(const std::string& path, const std::vector<TensorRef>& tensors,
                       const std::map<std::string, std::string>& metadata, DType dtype) {
  write_safetensors_mixed(path, tensors, std::vector<DType>(tensors.size(), dtype), metadata);
}

void write_safetensors_mixed(const std::string& path, const std::vector<TensorRef>& tensors,
                             const std::vector<DType>& dtypes,
                             const std::map<std::string, std::string>& metadata) {
  LLM0_CHECK(dtypes.size() == tensors.size(), "write_safetensors '{}': {} dtypes for {} tensors",
             path, dtypes.size(), tensors.size());
  const std::string header = build_header(path, tensors, metadata, dtypes);
  AtomicFile f(path);
  unsigned char len[8];
  for (int i = 0; i < 8; ++i)
    len[i] = static_cast<unsigned char>(uint64_t(header.size()) >> (8 * i));
  f.write(len, 8);
  f.write(header.data(), header.size());
  for (size_t i = 0; i < tensors.size(); ++i)
    write_values(f, tensors[i].data, static_cast<size_t>(tensors[i].shape.numel()), dtypes[i]);
  f.commit();
}

}  // namespace llm0
