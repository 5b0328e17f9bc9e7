// Python string operations on UTF-8 (jinja_text.h).
#include "chat/jinja_text.h"

#include "tokenizer/utf8.h"

namespace llm0::chat {

bool is_py_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

uint32_t utf8_next(std::string_view s, size_t& pos) {
  char32_t cp = 0;
  const int n = utf8_decode(s, pos, cp);
  if (n == 0) {
    ++pos;
    return 0xFFFD;
  }
  pos += (size_t)n;
  return (uint32_t)cp;
}

std::u32string utf8_code_points(std::string_view s) {
  std::u32string out;
  for (size_t pos = 0; pos < s.size();) out += (char32_t)utf8_next(s, pos);
  return out;
}

void utf8_append(std::string& out, uint32_t cp) { llm0::utf8_append(out, (char32_t)cp); }

std::string utf8_text(std::u32string_view cps) {
  std::string out;
  for (const char32_t c : cps) llm0::utf8_append(out, c);
  return out;
}

std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right) {
  const std::u32string cps = utf8_code_points(s);
  const std::u32string set = chars ? utf8_code_points(*chars) : std::u32string();
  auto strip = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : is_py_space((uint32_t)c); };
  size_t b = 0, e = cps.size();
  if (left)
    while (b < e && strip(cps[b])) ++b;
  if (right)
    while (e > b && strip(cps[e - 1])) --e;
  if (b == 0 && e == cps.size()) return std::string(s);
  return utf8_text(std::u32string_view(cps).substr(b, e - b));
}

namespace {
char32_t to_upper(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
    return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}
char32_t to_lower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
    return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}
}  // namespace

std::string py_upper(std::string_view s) {
  std::u32string cps = utf8_code_points(s);
  for (char32_t& c : cps) c = to_upper(c);
  return utf8_text(cps);
}

std::string py_lower(std::string_view s) {
  std::u32string cps = utf8_code_points(s);
  for (char32_t& c : cps) c = to_lower(c);
  return utf8_text(cps);
}

}  // namespace llm0::chat
