// GGUF v3 reader: a bounds-checked cursor over the file's bytes (see reader.h).
#include "io/gguf/reader.h"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/check.h"
#include "io/gguf/dequant.h"

namespace llm0 {

static_assert(std::endian::native == std::endian::little, "GGUF is read little-endian");

uint64_t GgufTensorInfo::numel() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> GgufTensorInfo::shape() const {
  return std::vector<int64_t>(dims.rbegin(), dims.rend());
}

std::vector<float> GgufTensorInfo::to_float() const {
  const uint64_t n = numel();
  LLM0_CHECK(n % ggml_block_size(type) == 0 && bytes.size() == ggml_nbytes(type, n),
             "GGUF tensor '{}': {} bytes do not hold {} elements of type {}", name, bytes.size(), n,
             ggml_type_name((uint32_t)type));
  std::vector<float> out(n);
  ggml_dequantize(type, bytes.data(), n, out.data());
  return out;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  for (const auto& kv : metadata)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

const GgufValue& GgufFile::at(const std::string& key) const {
  const GgufValue* v = find(key);
  LLM0_CHECK(v != nullptr, "GGUF metadata has no key {}", key);
  return *v;
}

const GgufTensorInfo* GgufFile::tensor(const std::string& name) const {
  for (const GgufTensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

// Reads fixed-size values and strings from [data, data + size), failing on any overrun.
struct Cursor {
  const std::string& path;
  const uint8_t* data;
  uint64_t size;
  uint64_t pos = 0;

  void need(uint64_t n, const char* what) const {
    LLM0_CHECK(n <= size - pos, "{}: truncated GGUF file: {} needs {} bytes at offset {}, {} left",
               path, what, n, pos, size - pos);
  }
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string get_string(const char* what) {
    const uint64_t n = get<uint64_t>(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(data + pos), n);
    pos += n;
    return s;
  }
};

GgufValue read_value(Cursor& c, GgufType type, const std::string& key, int depth);

GgufValue read_array(Cursor& c, const std::string& key, int depth) {
  LLM0_CHECK(depth < 8, "{}: GGUF key {}: arrays nested deeper than 8", c.path, key);
  const uint32_t et = c.get<uint32_t>("array type");
  LLM0_CHECK(et <= 12, "{}: GGUF key {}: unknown array element type {}", c.path, key, et);
  const uint64_t n = c.get<uint64_t>("array length");
  // Every element takes at least one byte: a count above the bytes left is a corrupt file.
  c.need(n, "array elements");
  std::vector<GgufValue> elems;
  elems.reserve(n);
  for (uint64_t k = 0; k < n; ++k) elems.push_back(read_value(c, (GgufType)et, key, depth + 1));
  return GgufValue::of_array((GgufType)et, std::move(elems));
}

GgufValue read_value(Cursor& c, GgufType type, const std::string& key, int depth) {
  switch (type) {
    case GgufType::UINT8: return GgufValue::of_u8(c.get<uint8_t>("uint8"));
    case GgufType::INT8: return GgufValue::of_i8(c.get<int8_t>("int8"));
    case GgufType::UINT16: return GgufValue::of_u16(c.get<uint16_t>("uint16"));
    case GgufType::INT16: return GgufValue::of_i16(c.get<int16_t>("int16"));
    case GgufType::UINT32: return GgufValue::of_u32(c.get<uint32_t>("uint32"));
    case GgufType::INT32: return GgufValue::of_i32(c.get<int32_t>("int32"));
    case GgufType::UINT64: return GgufValue::of_u64(c.get<uint64_t>("uint64"));
    case GgufType::INT64: return GgufValue::of_i64(c.get<int64_t>("int64"));
    case GgufType::FLOAT32: return GgufValue::of_f32(c.get<float>("float32"));
    case GgufType::FLOAT64: return GgufValue::of_f64(c.get<double>("float64"));
    case GgufType::BOOL: {
      const uint8_t b = c.get<uint8_t>("bool");
      LLM0_CHECK(b <= 1, "{}: GGUF key {}: bool byte {} is not 0 or 1", c.path, key, (int)b);
      return GgufValue::of_bool(b != 0);
    }
    case GgufType::STRING: return GgufValue::of_string(c.get_string("string"));
    case GgufType::ARRAY: return read_array(c, key, depth);
  }
  LLM0_FAIL("{}: GGUF key {}: unknown value type {}", c.path, key, (uint32_t)type);
}

void read_header(Cursor& c, GgufFile& f, uint64_t& n_tensors, uint64_t& n_kv) {
  c.need(4, "magic");
  LLM0_CHECK(std::memcmp(c.data, "GGUF", 4) == 0, "{}: not a GGUF file (bad magic)", c.path);
  c.pos = 4;
  f.version = c.get<uint32_t>("version");
  LLM0_CHECK((f.version & 0xFFFF) != 0, "{}: big-endian GGUF files are not supported", c.path);
  LLM0_CHECK(f.version == 2 || f.version == 3, "{}: GGUF version {} not supported (2 or 3)",
             c.path, f.version);
  n_tensors = c.get<uint64_t>("tensor count");
  n_kv = c.get<uint64_t>("metadata count");
  // A key/value takes at least 12 bytes and a tensor info at least 24: refuse absurd counts.
  LLM0_CHECK(n_kv <= (c.size - c.pos) / 12 && n_tensors <= (c.size - c.pos) / 24,
             "{}: truncated GGUF file: {} keys and {} tensors cannot fit in {} bytes", c.path,
             n_kv, n_tensors, c.size);
}

void read_metadata(Cursor& c, GgufFile& f, uint64_t n_kv) {
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string key = c.get_string("metadata key");
    LLM0_CHECK(!key.empty(), "{}: GGUF metadata key {} of {} is empty", c.path, k + 1, n_kv);
    const uint32_t type = c.get<uint32_t>("value type");
    LLM0_CHECK(type <= 12, "{}: GGUF key {}: unknown value type {}", c.path, key, type);
    LLM0_CHECK(f.find(key) == nullptr, "{}: GGUF key {} appears twice", c.path, key);
    GgufValue v = read_value(c, (GgufType)type, key, 0);
    if (key == "general.alignment") {
      LLM0_CHECK(v.type == GgufType::UINT32 && v.u > 0 && std::has_single_bit(v.u),
                 "{}: general.alignment must be a UINT32 power of two", c.path);
      f.alignment = (uint32_t)v.u;
    }
    f.metadata.emplace_back(std::move(key), std::move(v));
  }
}

// Sets t.type from its code: refuses a type llm0 does not read by its ggml name, and a quantized
// tensor whose rows (dims[0], innermost) are not whole blocks, as ggml does.
void check_tensor_type(const std::string& path, GgufTensorInfo& t, uint32_t code) {
  const std::string name = ggml_type_name(code);
  LLM0_CHECK(!name.empty(), "{}: GGUF tensor '{}' has unknown ggml type {}; supported: {}", path,
             t.name, code, kGgmlTypesRead);
  LLM0_CHECK(ggml_type_is_read(code), "{}: GGUF tensor '{}' has type {}, which llm0 does not "
             "read; supported: {}", path, t.name, name, kGgmlTypesRead);
  t.type = (GgmlType)code;
  const uint64_t block = (uint64_t)ggml_block_size(t.type);
  LLM0_CHECK(t.dims[0] % block == 0, "{}: GGUF tensor '{}' of type {} has rows of {} elements, "
             "not a multiple of its {}-element block", path, t.name, name, t.dims[0], block);
}

void read_tensor_infos(Cursor& c, GgufFile& f, uint64_t n_tensors) {
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensorInfo t;
    t.name = c.get_string("tensor name");
    LLM0_CHECK(!t.name.empty(), "{}: GGUF tensor {} of {} has an empty name", c.path, k + 1, n_tensors);
    const uint32_t nd = c.get<uint32_t>("n_dims");
    LLM0_CHECK(nd >= 1 && nd <= 4, "{}: GGUF tensor {}: {} dims (1 to 4 allowed)", c.path, t.name, nd);
    uint64_t numel = 1;
    for (uint32_t d = 0; d < nd; ++d) {
      t.dims.push_back(c.get<uint64_t>("tensor dim"));
      LLM0_CHECK(t.dims.back() == 0 || numel <= (UINT64_MAX >> 2) / t.dims.back(),
                 "{}: GGUF tensor {}: element count overflows", c.path, t.name);
      numel *= t.dims.back();
    }
    const uint32_t type = c.get<uint32_t>("tensor type");
    check_tensor_type(c.path, t, type);
    t.offset = c.get<uint64_t>("tensor offset");
    LLM0_CHECK(t.offset % f.alignment == 0, "{}: GGUF tensor {}: offset {} is not a multiple of "
               "the alignment {}", c.path, t.name, t.offset, f.alignment);
    LLM0_CHECK(f.tensor(t.name) == nullptr, "{}: GGUF tensor {} appears twice", c.path, t.name);
    f.tensors.push_back(std::move(t));
  }
}

// "'blk.0.attn_q.weight', Q4_0 [64, 32] (1152 bytes), ends at 1152": a tensor as the data-section
// accounting names it (type, PyTorch-order shape, bytes, end in the data section).
std::string tensor_span(const GgufTensorInfo& t, uint64_t nbytes) {
  std::string s = "'" + t.name + "', " + ggml_type_name((uint32_t)t.type) + " [";
  const std::vector<int64_t> shape = t.shape();
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "] (" + std::to_string(nbytes) + " bytes), ends at " + std::to_string(t.offset + nbytes);
}

// The data section's accounting, as ggml's gguf_init_from_file requires: in file order, each
// tensor starts where the one before ends rounded up to the alignment (the first at 0), and the
// file ends at the last tensor's end or within its padding (the writer pads it; ggml's loader
// does not need it). A wrong tensor count, offset, type or shape breaks the tiling and is refused
// naming the first tensor that does not fit. Then each tensor's bytes are copied out.
void read_tensor_data(Cursor& c, GgufFile& f) {
  const uint64_t align = f.alignment;
  const uint64_t start = (c.pos + align - 1) / align * align;
  LLM0_CHECK(start <= c.size || (f.tensors.empty() && c.pos == c.size),
             "{}: truncated GGUF file: no data section", c.path);
  const uint64_t avail = c.size > start ? c.size - start : 0;
  uint64_t next = 0;  // where the next tensor must start
  std::string last;   // tensor_span of the tensor before it
  for (GgufTensorInfo& t : f.tensors) {
    const uint64_t nbytes = ggml_nbytes(t.type, t.numel());
    LLM0_CHECK(t.offset == next, "{}: GGUF tensor '{}' starts at data offset {}, but {}: each "
               "tensor must start where the one before ends, rounded up to the {}-byte alignment "
               "(a tensor's offset, type or shape is wrong)", c.path, t.name, t.offset,
               last.empty() ? std::string("the first tensor must start at 0")
                            : "the tensor before it, " + last + " (padded: " + std::to_string(next) + ")",
               align);
    LLM0_CHECK(t.offset <= avail && nbytes <= avail - t.offset, "{}: truncated GGUF file: tensor "
               "{} needs bytes [{}, {}) of a {}-byte data section", c.path, t.name, t.offset,
               t.offset + nbytes, avail);
    t.bytes.assign(c.data + start + t.offset, c.data + start + t.offset + nbytes);
    const uint64_t end = t.offset + nbytes;  // <= avail: the padding below cannot overflow
    next = end + (align - end % align) % align;
    last = tensor_span(t, nbytes);
  }
  LLM0_CHECK(avail <= next,  // avail >= the last tensor's end: checked above
             "{}: the GGUF data section holds {} bytes, but its {} tensors account for "
             "{}{}: the {} bytes after them belong to no tensor (a wrong tensor count, or the last "
             "tensor's type or shape)", c.path, avail, f.tensors.size(), next,
             last.empty() ? std::string() : " (the last, " + last + ")", avail - next);
}

}  // namespace

GgufFile read_gguf(const std::string& path) {
  std::error_code ec;
  LLM0_CHECK(!std::filesystem::is_directory(path, ec), "{}: is a directory, not a GGUF file", path);
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "{}: cannot open GGUF file", path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  LLM0_CHECK(!in.bad(), "{}: read error", path);
  Cursor c{path, bytes.data(), bytes.size()};
  GgufFile f;
  uint64_t n_tensors = 0, n_kv = 0;
  read_header(c, f, n_tensors, n_kv);
  read_metadata(c, f, n_kv);
  read_tensor_infos(c, f, n_tensors);
  read_tensor_data(c, f);
  return f;
}

}  // namespace llm0
