// GPT-2 bytes_to_unicode table and its inverse (see byte_unicode.h).
#include "tokenizer/byte_unicode.h"

#include <array>

#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

struct Tables {
  std::array<char32_t, 256> to_unicode{};
  std::array<int, 324> to_byte{};  // indexed by code point (all images are < U+0144)
};

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    t.to_byte.fill(-1);
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      t.to_unicode[b] = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + next++);
      t.to_byte[t.to_unicode[b]] = b;
    }
    return t;
  }();
  return t;
}

}  // namespace

char32_t byte_to_unicode(unsigned char b) { return tables().to_unicode[b]; }

std::string bytes_to_byte_level(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) utf8_append(out, byte_to_unicode(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> byte_level_to_bytes(std::string_view s) {
  const Tables& t = tables();
  std::string out;
  size_t pos = 0;
  while (pos < s.size()) {
    char32_t cp = 0;
    const int len = utf8_decode(s, pos, cp);
    if (len == 0 || cp >= t.to_byte.size() || t.to_byte[cp] < 0) return std::nullopt;
    out += static_cast<char>(t.to_byte[cp]);
    pos += len;
  }
  return out;
}

}  // namespace llm0
