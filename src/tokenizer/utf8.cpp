// UTF-8 decoding and encoding (RFC 3629), strict: see utf8.h.
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {
bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length a lead byte announces (0 for a continuation byte or an invalid lead 0xC0, 0xC1, >= 0xF5).
int lead_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}
}  // namespace

int utf8_decode(std::string_view text, size_t pos, char32_t& cp) {
  const auto c0 = static_cast<unsigned char>(text[pos]);
  const int len = lead_length(c0);
  if (len == 0 || pos + len > text.size()) return 0;
  if (len == 1) { cp = c0; return 1; }
  char32_t v = c0 & (0x7F >> len);
  for (int i = 1; i < len; ++i) {
    const auto c = static_cast<unsigned char>(text[pos + i]);
    if (!is_cont(c)) return 0;
    v = (v << 6) | (c & 0x3F);
  }
  // Reject overlong forms, UTF-16 surrogates and values above U+10FFFF.
  if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF))) return 0;
  if (v >= 0xD800 && v <= 0xDFFF) return 0;
  cp = v;
  return len;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

size_t utf8_invalid_offset(std::string_view text) {
  char32_t cp = 0;
  for (size_t pos = 0; pos < text.size();) {
    const int len = utf8_decode(text, pos, cp);
    if (len == 0) return pos;
    pos += static_cast<size_t>(len);
  }
  return text.size();
}

bool utf8_valid(std::string_view text) { return utf8_invalid_offset(text) == text.size(); }

}  // namespace llm0
