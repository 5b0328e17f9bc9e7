// .npy writer and reader for float32 C-order arrays. The header dict is parsed by a small
// Python-literal parser that accepts exactly what numpy writes (strings, True/False, tuples of
// integers). See npy.h.
#include "io/npy.h"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/check.h"

namespace llm0 {

static_assert(std::endian::native == std::endian::little, ".npy I/O assumes little-endian");

namespace {

constexpr char kMagic[] = "\x93NUMPY";         // 6 bytes
constexpr uint64_t kMaxHeaderBytes = 1 << 20;  // numpy itself refuses headers above 10000 bytes

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Parser of the header dict, e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
class HeaderParser {
 public:
  HeaderParser(const std::string& s, const std::string& path) : s_(s), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!eat('}')) {
      const std::string key = parse_str();
      expect(':');
      if (key == "descr")
        h.descr = parse_str(), seen_descr = true;
      else if (key == "fortran_order")
        h.fortran_order = parse_bool(), seen_order = true;
      else if (key == "shape")
        h.shape = parse_tuple(), seen_shape = true;
      else
        fail("unknown key '" + key + "'");
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    LLM0_CHECK(seen_descr && seen_order && seen_shape,
               "npy '{}': header lacks one of 'descr', 'fortran_order', 'shape'", path_);
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(format("npy '{}': malformed header at byte {}: {}", path_, i_, what),
                format("{}:{}", __FILE__, __LINE__));
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string parse_str() {
    skip_ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a string");
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string::npos) fail("unterminated string");
    std::string out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return out;
  }
  bool parse_bool() {
    skip_ws();
    if (s_.compare(i_, 4, "True") == 0) return i_ += 4, true;
    if (s_.compare(i_, 5, "False") == 0) return i_ += 5, false;
    fail("expected True or False");
  }
  std::vector<int64_t> parse_tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!eat(')')) {
      skip_ws();
      int64_t v = 0;
      const size_t start = i_;
      for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v))
          fail("shape extent overflows");
      if (i_ == start) fail("expected a non-negative integer in 'shape'");
      dims.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  const std::string& s_;
  const std::string& path_;
  size_t i_ = 0;
};

// "(2, 3)", "(5,)" or "()", as Python's repr of a tuple.
std::string shape_tuple(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape.dims[i]);
  return s + (shape.dims.size() == 1 ? ",)" : ")");
}

uint64_t read_le(std::ifstream& in, int bytes, const std::string& path) {
  unsigned char b[4] = {};
  in.read(reinterpret_cast<char*>(b), bytes);
  LLM0_CHECK(in.gcount() == bytes, "npy '{}': file truncated in the preamble", path);
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

}  // namespace

void write_npy(const std::string& path, const float* data, const Shape& shape) {
  for (int64_t d : shape.dims)
    LLM0_CHECK(d >= 0, "write_npy '{}': negative extent in shape {}", path, shape.str());
  LLM0_CHECK(data != nullptr || shape.numel() == 0, "write_npy '{}': null data", path);
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  const size_t preamble = 10;  // magic (6) + version (2) + uint16 header length
  const size_t total = ((preamble + header.size() + 1 + 63) / 64) * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header += '\n';
  LLM0_CHECK(header.size() <= 65535, "write_npy '{}': header of {} bytes too long for v1.0", path,
             header.size());
  AtomicFile f(path);
  const unsigned char pre[10] = {0x93,
                                 'N',
                                 'U',
                                 'M',
                                 'P',
                                 'Y',
                                 1,
                                 0,
                                 static_cast<unsigned char>(header.size() & 0xff),
                                 static_cast<unsigned char>(header.size() >> 8)};
  f.write(pre, sizeof pre);
  f.write(header.data(), header.size());
  f.write(data, static_cast<size_t>(shape.numel()) * sizeof(float));
  f.commit();
}

Tensor read_npy(const std::string& path) {
  std::error_code ec;
  LLM0_CHECK(std::filesystem::is_regular_file(path, ec), "npy '{}': not a readable file", path);
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(!ec && in.is_open(), "npy '{}': cannot open", path);
  char magic[6] = {};
  in.read(magic, 6);
  LLM0_CHECK(in.gcount() == 6 && std::memcmp(magic, kMagic, 6) == 0,
             "npy '{}': bad magic (not a .npy file)", path);
  const uint64_t major = read_le(in, 1, path), minor = read_le(in, 1, path);
  LLM0_CHECK(major >= 1 && major <= 3 && minor == 0, "npy '{}': unsupported version {}.{}", path,
             major, minor);
  const int len_bytes = major == 1 ? 2 : 4;
  const uint64_t header_len = read_le(in, len_bytes, path), header_start = 8 + len_bytes;
  LLM0_CHECK(header_len <= kMaxHeaderBytes && header_len <= file_size - header_start,
             "npy '{}': header length {} beyond the file size {} or the cap", path, header_len,
             file_size);
  std::string text(static_cast<size_t>(header_len), '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_len));
  const NpyHeader h = HeaderParser(text, path).parse();
  LLM0_CHECK(h.descr == "<f4", "npy '{}': dtype '{}' unsupported (llm0 reads float32 '<f4' only)",
             path, h.descr);
  LLM0_CHECK(!h.fortran_order, "npy '{}': fortran_order True unsupported (C order only)", path);
  uint64_t bytes = sizeof(float);
  for (int64_t d : h.shape)
    LLM0_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes),
               "npy '{}': shape overflows", path);
  const uint64_t have = file_size - header_start - header_len;
  LLM0_CHECK(have == bytes, "npy '{}': shape {} needs {} data bytes but the file has {} ({})", path,
             Shape(h.shape).str(), bytes, have, have < bytes ? "truncated" : "trailing bytes");
  Tensor t{Shape(h.shape)};
  in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(bytes));
  LLM0_CHECK(static_cast<uint64_t>(in.gcount()) == bytes, "npy '{}': read of the data failed",
             path);
  return t;
}

}  // namespace llm0
