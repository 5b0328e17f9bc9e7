// safetensors reader: validates the header completely before reading any tensor data, so a
// malformed file gives an llm0::Error naming the file, tensor and field, never a crash or a
// huge allocation (every allocation is bounded by the file size). See safetensors.h.
#include "io/safetensors.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/json_file.h"
#include "core/half.h"

namespace llm0 {

static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes little-endian");

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
  }
  return "?";
}

int dtype_size(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

namespace {

using nlohmann::json;

// A tensor's header entry after validation; begin/end are relative to the data section.
struct RawEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin = 0, end = 0;
};

// Reads the 8-byte little-endian header length and checks it against the cap and file size.
uint64_t read_header_len(std::ifstream& in, const std::string& path, uint64_t file_size) {
  LLM0_CHECK(file_size >= 8,
             "safetensors '{}': file is {} bytes, shorter than the 8-byte header length", path,
             file_size);
  unsigned char b[8];
  in.read(reinterpret_cast<char*>(b), 8);
  LLM0_CHECK(in.gcount() == 8, "safetensors '{}': cannot read the header length", path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  LLM0_CHECK(n <= kSafetensorsMaxHeaderBytes,
             "safetensors '{}': header length {} exceeds the cap of {} bytes", path, n,
             kSafetensorsMaxHeaderBytes);
  LLM0_CHECK(n <= file_size - 8,
             "safetensors '{}': header length {} is beyond the file size {} (truncated?)", path, n,
             file_size);
  return n;
}

json parse_header(const std::string& text, const std::string& path) {
  // (parse_json accepts the trailing-space padding writers add)
  const json h = parse_json(text, format("safetensors '{}': header", path));
  LLM0_CHECK(h.is_object(), "safetensors '{}': header is not a JSON object but {}", path,
             h.type_name());
  return h;
}

// A non-negative JSON integer (nlohmann stores large ones as unsigned); else an error.
uint64_t as_uint(const json& v, const std::string& path, const std::string& name,
                 const char* field) {
  LLM0_CHECK(v.is_number_integer() && (v.is_number_unsigned() || v.get<int64_t>() >= 0),
             "safetensors '{}': tensor '{}': {} holds {}, not a non-negative integer", path, name,
             field, json_excerpt(v));
  return v.get<uint64_t>();
}

DType parse_dtype(const json& e, const std::string& path, const std::string& name) {
  LLM0_CHECK(e.contains("dtype") && e["dtype"].is_string(),
             "safetensors '{}': tensor '{}': missing or non-string 'dtype'", path, name);
  const std::string d = e["dtype"].get<std::string>();
  if (d == "F32") return DType::F32;
  if (d == "F16") return DType::F16;
  if (d == "BF16") return DType::BF16;
  LLM0_FAIL("safetensors '{}': tensor '{}': unsupported dtype '{}' (llm0 reads F32, F16, BF16)",
            path, name, d);
}

Shape parse_shape(const json& e, const std::string& path, const std::string& name) {
  LLM0_CHECK(e.contains("shape") && e["shape"].is_array(),
             "safetensors '{}': tensor '{}': 'shape' missing or not a list", path, name);
  std::vector<int64_t> dims;
  for (const json& d : e["shape"]) {
    const uint64_t v = as_uint(d, path, name, "'shape'");
    LLM0_CHECK(v <= uint64_t(INT64_MAX),
               "safetensors '{}': tensor '{}': 'shape' extent {} too large", path, name, v);
    dims.push_back(static_cast<int64_t>(v));
  }
  return Shape(std::move(dims));
}

RawEntry parse_entry(const std::string& name, const json& e, const std::string& path,
                     uint64_t data_size) {
  LLM0_CHECK(e.is_object(), "safetensors '{}': tensor '{}': entry is not a JSON object", path,
             name);
  RawEntry r{name, parse_dtype(e, path, name), parse_shape(e, path, name)};
  LLM0_CHECK(
      e.contains("data_offsets") && e["data_offsets"].is_array() && e["data_offsets"].size() == 2,
      "safetensors '{}': tensor '{}': 'data_offsets' missing or not [begin, end]", path, name);
  r.begin = as_uint(e["data_offsets"][0], path, name, "'data_offsets'");
  r.end = as_uint(e["data_offsets"][1], path, name, "'data_offsets'");
  LLM0_CHECK(r.begin <= r.end, "safetensors '{}': tensor '{}': 'data_offsets' begin {} > end {}",
             path, name, r.begin, r.end);
  uint64_t bytes = static_cast<uint64_t>(dtype_size(r.dtype));
  for (int64_t d : r.shape.dims)
    LLM0_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes),
               "safetensors '{}': tensor '{}': 'shape' {} overflows the byte count", path, name,
               r.shape.str());
  LLM0_CHECK(
      r.end - r.begin == bytes,
      "safetensors '{}': tensor '{}': 'data_offsets' span {} bytes but shape {} of {} needs {}",
      path, name, r.end - r.begin, r.shape.str(), dtype_name(r.dtype), bytes);
  LLM0_CHECK(r.end <= data_size,
             "safetensors '{}': tensor '{}': 'data_offsets' end {} is past the end of the data ({} "
             "bytes; truncated file?)",
             path, name, r.end, data_size);
  return r;
}

std::map<std::string, std::string> parse_metadata(const json& m, const std::string& path) {
  LLM0_CHECK(m.is_object(), "safetensors '{}': '__metadata__' is not a JSON object", path);
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : m.items()) {
    LLM0_CHECK(v.is_string(), "safetensors '{}': '__metadata__' key '{}' is not a string but {}",
               path, k, v.type_name());
    out[k] = v.get<std::string>();
  }
  return out;
}

// Errors if two non-empty byte ranges share a byte.
void check_overlaps(std::vector<RawEntry> entries, const std::string& path) {
  std::erase_if(entries, [](const RawEntry& r) { return r.begin == r.end; });
  std::sort(entries.begin(), entries.end(),
            [](const RawEntry& a, const RawEntry& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < entries.size(); ++i)
    LLM0_CHECK(entries[i - 1].end <= entries[i].begin,
               "safetensors '{}': tensors '{}' [{}, {}) and '{}' [{}, {}) overlap", path,
               entries[i - 1].name, entries[i - 1].begin, entries[i - 1].end, entries[i].name,
               entries[i].begin, entries[i].end);
}

// The data section's accounting, as the reference implementation's Metadata::validate and
// read_metadata require: in data_offsets order (begin, then end) each tensor starts where the
// ones before end (the first at 0; a zero-element tensor too) and the last ends at the end of
// the file. So a hole, bytes
// after the last tensor, or a tensor left out of the header is refused naming the tensor that
// does not fit. Run after check_overlaps (whose message names both tensors of an overlap).
void check_tiling(std::vector<RawEntry> entries, uint64_t data_size, const std::string& path) {
  std::sort(entries.begin(), entries.end(), [](const RawEntry& a, const RawEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t pos = 0;
  for (const RawEntry& r : entries) {
    LLM0_CHECK(r.begin == pos,
               "safetensors '{}': tensor '{}' starts at data offset {}, but the tensors before it end "
               "at {}: the tensors must fill the data section one after another, without holes",
               path, r.name, r.begin, pos);
    pos = r.end;
  }
  LLM0_CHECK(pos == data_size, "safetensors '{}': the data section holds {} bytes, but the tensors "
             "end at {}{}: the {} bytes after them belong to no tensor (a tensor missing from the "
             "header, or a wrong dtype or shape)", path, data_size, pos,
             entries.empty() ? std::string() : " (the last is '" + entries.back().name + "')",
             data_size - pos);
}

std::vector<float> read_values(std::ifstream& in, uint64_t data_start, const RawEntry& r,
                               const std::string& path) {
  const size_t n = static_cast<size_t>(r.shape.numel());
  std::vector<float> values(n);
  if (n == 0) return values;
  std::vector<uint16_t> half(r.dtype == DType::F32 ? 0 : n);
  char* dst = r.dtype == DType::F32 ? reinterpret_cast<char*>(values.data())
                                    : reinterpret_cast<char*>(half.data());
  in.seekg(static_cast<std::streamoff>(data_start + r.begin));
  in.read(dst, static_cast<std::streamsize>(r.end - r.begin));
  LLM0_CHECK(in && static_cast<uint64_t>(in.gcount()) == r.end - r.begin,
             "safetensors '{}': tensor '{}': read failed (file truncated while reading?)", path,
             r.name);
  if (r.dtype == DType::F16)
    for (size_t i = 0; i < n; ++i) values[i] = fp16_to_float(half[i]);
  if (r.dtype == DType::BF16)
    for (size_t i = 0; i < n; ++i) values[i] = bf16_to_float(half[i]);
  return values;
}

}  // namespace

SafetensorsFile read_safetensors(const std::string& path) {
  std::error_code ec;
  LLM0_CHECK(std::filesystem::is_regular_file(path, ec), "safetensors '{}': not a readable file",
             path);
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  LLM0_CHECK(!ec, "safetensors '{}': cannot stat: {}", path, ec.message());
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.is_open(), "safetensors '{}': cannot open", path);
  const uint64_t header_len = read_header_len(in, path, file_size);
  std::string text(static_cast<size_t>(header_len), '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_len));
  LLM0_CHECK(static_cast<uint64_t>(in.gcount()) == header_len, "safetensors '{}': header truncated",
             path);
  const json header = parse_header(text, path);

  const uint64_t data_start = 8 + header_len, data_size = file_size - data_start;
  SafetensorsFile file;
  std::vector<RawEntry> entries;
  for (const auto& [name, e] : header.items()) {
    if (name == "__metadata__")
      file.metadata = parse_metadata(e, path);
    else
      entries.push_back(parse_entry(name, e, path, data_size));
  }
  check_overlaps(entries, path);
  check_tiling(entries, data_size, path);
  for (const RawEntry& r : entries) {
    std::vector<float> values = read_values(in, data_start, r, path);
    file.tensors[r.name] = SafetensorsEntry{r.name, r.dtype, r.shape, std::move(values)};
  }
  return file;
}

}  // namespace llm0
