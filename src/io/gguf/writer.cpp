// GGUF v3 writer: metadata and tensor infos are serialised into one header buffer, then the
// tensor data follows, each tensor padded to the alignment (see writer.h for the layout).
#include "io/gguf/writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/half.h"
#include "core/tensor.h"

namespace llm0 {

static_assert(std::endian::native == std::endian::little, "GGUF is written little-endian");

GgufValue GgufValue::of_u8(uint8_t v) { GgufValue x; x.type = GgufType::UINT8; x.u = v; return x; }
GgufValue GgufValue::of_i8(int8_t v) { GgufValue x; x.type = GgufType::INT8; x.i = v; return x; }
GgufValue GgufValue::of_u16(uint16_t v) { GgufValue x; x.type = GgufType::UINT16; x.u = v; return x; }
GgufValue GgufValue::of_i16(int16_t v) { GgufValue x; x.type = GgufType::INT16; x.i = v; return x; }
GgufValue GgufValue::of_u32(uint32_t v) { GgufValue x; x.type = GgufType::UINT32; x.u = v; return x; }
GgufValue GgufValue::of_i32(int32_t v) { GgufValue x; x.type = GgufType::INT32; x.i = v; return x; }
GgufValue GgufValue::of_u64(uint64_t v) { GgufValue x; x.type = GgufType::UINT64; x.u = v; return x; }
GgufValue GgufValue::of_i64(int64_t v) { GgufValue x; x.type = GgufType::INT64; x.i = v; return x; }
GgufValue GgufValue::of_f32(float v) { GgufValue x; x.type = GgufType::FLOAT32; x.f = v; return x; }
GgufValue GgufValue::of_f64(double v) { GgufValue x; x.type = GgufType::FLOAT64; x.f = v; return x; }
GgufValue GgufValue::of_bool(bool v) { GgufValue x; x.type = GgufType::BOOL; x.i = v; return x; }
GgufValue GgufValue::of_string(std::string v) {
  GgufValue x;
  x.type = GgufType::STRING;
  x.s = std::move(v);
  return x;
}
GgufValue GgufValue::of_array(GgufType type, std::vector<GgufValue> elements) {
  GgufValue x;
  x.type = GgufType::ARRAY;
  x.array_type = type;
  x.array = std::move(elements);
  return x;
}
GgufValue GgufValue::of_strings(const std::vector<std::string>& v) {
  std::vector<GgufValue> e;
  e.reserve(v.size());
  for (const std::string& s : v) e.push_back(of_string(s));
  return of_array(GgufType::STRING, std::move(e));
}
GgufValue GgufValue::of_i32s(const std::vector<int32_t>& v) {
  std::vector<GgufValue> e;
  e.reserve(v.size());
  for (int32_t i : v) e.push_back(of_i32(i));
  return of_array(GgufType::INT32, std::move(e));
}

bool GgufValue::operator==(const GgufValue& o) const {
  if (type != o.type) return false;
  switch (type) {
    case GgufType::STRING: return s == o.s;
    case GgufType::ARRAY: return array_type == o.array_type && array == o.array;
    case GgufType::FLOAT32:
    case GgufType::FLOAT64: return f == o.f;
    case GgufType::UINT8: case GgufType::UINT16: case GgufType::UINT32: case GgufType::UINT64:
      return u == o.u;
    default: return i == o.i;
  }
}

namespace {

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

// The value's payload (without its type code); arrays: element type, count, elements.
void put_value(std::string& out, const GgufValue& v, const std::string& key) {
  switch (v.type) {
    case GgufType::UINT8: put<uint8_t>(out, (uint8_t)v.u); break;
    case GgufType::INT8: put<int8_t>(out, (int8_t)v.i); break;
    case GgufType::UINT16: put<uint16_t>(out, (uint16_t)v.u); break;
    case GgufType::INT16: put<int16_t>(out, (int16_t)v.i); break;
    case GgufType::UINT32: put<uint32_t>(out, (uint32_t)v.u); break;
    case GgufType::INT32: put<int32_t>(out, (int32_t)v.i); break;
    case GgufType::UINT64: put<uint64_t>(out, v.u); break;
    case GgufType::INT64: put<int64_t>(out, v.i); break;
    case GgufType::FLOAT32: put<float>(out, (float)v.f); break;
    case GgufType::FLOAT64: put<double>(out, v.f); break;
    case GgufType::BOOL: put<uint8_t>(out, v.i ? 1 : 0); break;
    case GgufType::STRING: put_string(out, v.s); break;
    case GgufType::ARRAY:
      put<uint32_t>(out, (uint32_t)v.array_type);
      put<uint64_t>(out, v.array.size());
      for (const GgufValue& e : v.array) {
        LLM0_CHECK(e.type == v.array_type, "GGUF key {}: array element of type {} in an array of "
                   "type {}", key, (uint32_t)e.type, (uint32_t)v.array_type);
        put_value(out, e, key);
      }
      break;
    default: LLM0_FAIL("GGUF key {}: unknown value type {}", key, (uint32_t)v.type);
  }
}

uint64_t pad_to(uint64_t n, uint64_t align) { return (n + align - 1) / align * align; }

}  // namespace

void GgufWriter::add(const std::string& key, GgufValue value) {
  LLM0_CHECK(!key.empty(), "GGUF metadata key is empty");
  for (const auto& kv : kv_) LLM0_CHECK(kv.first != key, "GGUF metadata key {} added twice", key);
  if (key == "general.alignment") {
    LLM0_CHECK(value.type == GgufType::UINT32 && value.u > 0 && std::has_single_bit(value.u),
               "general.alignment must be a UINT32 power of two");
  }
  kv_.emplace_back(key, std::move(value));
}

uint32_t GgufWriter::alignment() const {
  for (const auto& kv : kv_)
    if (kv.first == "general.alignment") return (uint32_t)kv.second.u;
  return kGgufDefaultAlignment;
}

void GgufWriter::add_tensor(const std::string& name, std::vector<int64_t> shape, GgmlType type,
                            const float* data) {
  LLM0_CHECK(!name.empty(), "GGUF tensor name is empty");
  LLM0_CHECK(!ggml_type_is_quantized(type), "GGUF tensor {}: llm0 does not write quantized type "
             "{} (F32, F16 or BF16)", name, ggml_type_name((uint32_t)type));
  for (const GgufTensor& t : tensors_) LLM0_CHECK(t.name != name, "GGUF tensor {} added twice", name);
  LLM0_CHECK(!shape.empty() && shape.size() <= 4, "GGUF tensor {}: {} dims (1 to 4 allowed)",
             name, shape.size());
  for (int64_t d : shape) LLM0_CHECK(d >= 0, "GGUF tensor {}: negative extent {}", name, d);
  // A zero extent anywhere means no elements, whatever the others (their product is not formed).
  int64_t n = std::find(shape.begin(), shape.end(), 0) != shape.end() ? 0 : 1;
  for (int64_t d : shape)
    LLM0_CHECK(n == 0 || !__builtin_mul_overflow(n, d, &n),
               "GGUF tensor {}: the element count of shape {} overflows", name, Shape(shape).str());
  int64_t nbytes = 0;
  LLM0_CHECK(!__builtin_mul_overflow(n, int64_t{ggml_type_size(type)}, &nbytes),
             "GGUF tensor {}: {} elements overflow the byte count", name, n);
  GgufTensor t{name, std::move(shape), type, {}};
  t.bytes.resize(static_cast<size_t>(nbytes));
  if (type == GgmlType::F32) {
    if (n > 0) std::memcpy(t.bytes.data(), data, t.bytes.size());
  } else {
    for (int64_t k = 0; k < n; ++k) {
      const uint16_t h = type == GgmlType::BF16 ? float_to_bf16(data[k]) : float_to_fp16(data[k]);
      std::memcpy(t.bytes.data() + 2 * k, &h, 2);
    }
  }
  tensors_.push_back(std::move(t));
}

void GgufWriter::write(const std::string& path) const {
  const uint64_t align = alignment();
  std::string head;
  head += "GGUF";
  put<uint32_t>(head, 3);
  put<uint64_t>(head, tensors_.size());
  put<uint64_t>(head, kv_.size());
  for (const auto& [key, value] : kv_) {
    put_string(head, key);
    put<uint32_t>(head, (uint32_t)value.type);
    put_value(head, value, key);
  }
  uint64_t offset = 0;
  for (const GgufTensor& t : tensors_) {
    put_string(head, t.name);
    put<uint32_t>(head, (uint32_t)t.shape.size());
    for (size_t d = t.shape.size(); d-- > 0;) put<uint64_t>(head, (uint64_t)t.shape[d]);  // ggml order
    put<uint32_t>(head, (uint32_t)t.type);
    put<uint64_t>(head, offset);
    offset = pad_to(offset + t.bytes.size(), align);
  }
  head.resize(pad_to(head.size(), align), '\0');
  AtomicFile file(path);
  file.write(head.data(), head.size());
  const std::string zeros(align, '\0');
  for (const GgufTensor& t : tensors_) {
    file.write(t.bytes.data(), t.bytes.size());
    const uint64_t pad = pad_to(t.bytes.size(), align) - t.bytes.size();
    file.write(zeros.data(), pad);
  }
  file.commit();
}

}  // namespace llm0
