// GgufMeta (see metadata.h).
#include "io/gguf/metadata.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/check.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

bool is_int_type(GgufType t) {
  return t == GgufType::UINT8 || t == GgufType::INT8 || t == GgufType::UINT16 || t == GgufType::INT16 ||
         t == GgufType::UINT32 || t == GgufType::INT32 || t == GgufType::UINT64 || t == GgufType::INT64;
}

bool is_signed_type(GgufType t) {
  return t == GgufType::INT8 || t == GgufType::INT16 || t == GgufType::INT32 || t == GgufType::INT64;
}

int64_t int_of(const GgufValue& v) { return is_signed_type(v.type) ? v.i : (int64_t)std::min<uint64_t>(v.u, INT64_MAX); }

// The shortest decimal that reads back as the same float, read as a double.
double shortest(float x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  *r.ptr = 0;
  return std::strtod(buf, nullptr);
}

// GGUF strings are UTF-8 (docs/gguf.md gguf_string_t), and what an importer reads ends in JSON,
// which cannot hold other bytes: refuse naming the value (`label`), the byte and its offset.
void check_utf8(const std::string& where, const std::string& label, const std::string& s) {
  const size_t at = utf8_invalid_offset(s);
  if (at == s.size()) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", (unsigned)(unsigned char)s[at]);
  LLM0_FAIL("{}: GGUF key {} is not valid UTF-8 (byte {} at offset {})", where, label, byte, at);
}

}  // namespace

std::optional<int> GgufMeta::opt_int(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(is_int_type(v->type), "{}: GGUF key {} is not an integer", where, key);
  const int64_t x = int_of(*v);
  LLM0_CHECK(x >= 0 && x <= 2147483647, "{}: GGUF key {} = {} is out of range [0, 2^31)", where, key, x);
  return (int)x;
}

int GgufMeta::req_int(const std::string& key) const {
  const std::optional<int> v = opt_int(key);
  LLM0_CHECK(v.has_value(), "{}: GGUF metadata has no key {}", where, key);
  return *v;
}

std::optional<double> GgufMeta::opt_float(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::FLOAT32 || v->type == GgufType::FLOAT64, "{}: GGUF key {} is "
             "not a float", where, key);
  return v->type == GgufType::FLOAT32 ? shortest((float)v->f) : v->f;
}

double GgufMeta::req_float(const std::string& key) const {
  const std::optional<double> v = opt_float(key);
  LLM0_CHECK(v.has_value(), "{}: GGUF metadata has no key {}", where, key);
  return *v;
}

std::optional<bool> GgufMeta::opt_bool(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::BOOL, "{}: GGUF key {} is not a bool", where, key);
  return v->i != 0;
}

std::optional<std::string> GgufMeta::opt_string(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::STRING, "{}: GGUF key {} is not a string", where, key);
  check_utf8(where, key, v->s);
  return v->s;
}

std::string GgufMeta::req_string(const std::string& key) const {
  const std::optional<std::string> v = opt_string(key);
  LLM0_CHECK(v.has_value(), "{}: GGUF metadata has no key {}", where, key);
  return *v;
}

std::optional<std::vector<std::string>> GgufMeta::opt_strings(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::ARRAY && v->array_type == GgufType::STRING, "{}: GGUF key {} is "
             "not an array of strings", where, key);
  std::vector<std::string> out;
  out.reserve(v->array.size());
  for (const GgufValue& e : v->array) {
    check_utf8(where, key + "[" + std::to_string(out.size()) + "]", e.s);
    out.push_back(e.s);
  }
  return out;
}

std::optional<std::vector<int64_t>> GgufMeta::opt_ints(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::ARRAY && is_int_type(v->array_type), "{}: GGUF key {} is not an "
             "array of integers", where, key);
  std::vector<int64_t> out;
  out.reserve(v->array.size());
  for (const GgufValue& e : v->array) out.push_back(int_of(e));
  return out;
}

std::optional<std::vector<float>> GgufMeta::opt_floats(const std::string& key) const {
  const GgufValue* v = file.find(key);
  if (v == nullptr) return std::nullopt;
  LLM0_CHECK(v->type == GgufType::ARRAY && (v->array_type == GgufType::FLOAT32 ||
             v->array_type == GgufType::FLOAT64), "{}: GGUF key {} is not an array of floats", where, key);
  std::vector<float> out;
  out.reserve(v->array.size());
  for (const GgufValue& e : v->array) out.push_back((float)e.f);
  return out;
}

}  // namespace llm0
