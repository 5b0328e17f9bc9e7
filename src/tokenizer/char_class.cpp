// Code-point range tables behind char_class() (see char_class.h). Ranges are inclusive and
// sorted; a code point in none of them is a letter. Emoji is looked up before punctuation.
#include "tokenizer/char_class.h"

#include <algorithm>
#include <cstdio>
#include <span>

namespace llm0 {

namespace {

struct Range { char32_t lo, hi; };

constexpr Range kWhitespace[] = {{0x09, 0x0D}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0},
    {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
    {0x3000, 0x3000}};

constexpr Range kDigit[] = {{0x30, 0x39}, {0xFF10, 0xFF19}};

constexpr Range kCjk[] = {{0x3005, 0x3007}, {0x3040, 0x309F}, {0x30A0, 0x30FF},
    {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7AF}, {0xF900, 0xFAFF},
    {0x20000, 0x2FA1F}};

constexpr Range kEmoji[] = {{0x200D, 0x200D}, {0x20E3, 0x20E3}, {0x2600, 0x27BF},
    {0x2B50, 0x2B55}, {0xFE0E, 0xFE0F}, {0x1F000, 0x1FAFF}, {0xE0020, 0xE007F}};

// ASCII controls/punctuation, Latin-1 symbols, General Punctuation (minus whitespace/ZWJ),
// super/subscripts to Misc Technical, arrows, math, box drawing, CJK symbols, vertical and
// compatibility forms, fullwidth punctuation, halfwidth CJK punctuation, fullwidth signs.
constexpr Range kPunct[] = {{0x00, 0x08}, {0x0E, 0x1F}, {0x21, 0x2F}, {0x3A, 0x40},
    {0x5B, 0x60}, {0x7B, 0x84}, {0x86, 0x9F}, {0xA1, 0xBF}, {0xD7, 0xD7}, {0xF7, 0xF7},
    {0x200B, 0x200C}, {0x200E, 0x2027}, {0x202A, 0x202E}, {0x2030, 0x205E}, {0x2060, 0x206F},
    {0x2070, 0x20CF}, {0x2100, 0x2BFF}, {0x3001, 0x3004}, {0x3008, 0x303F}, {0xFE10, 0xFE1F},
    {0xFE30, 0xFE6F}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65},
    {0xFFE0, 0xFFEE}};

bool in(std::span<const Range> table, char32_t cp) {
  auto it = std::upper_bound(table.begin(), table.end(), cp,
                             [](char32_t v, const Range& r) { return v < r.lo; });
  return it != table.begin() && cp <= std::prev(it)->hi;
}

std::span<const Range> table_of(CharClass c) {
  switch (c) {
    case CharClass::kWhitespace: return kWhitespace;
    case CharClass::kDigit: return kDigit;
    case CharClass::kCjk: return kCjk;
    case CharClass::kEmoji: return kEmoji;
    case CharClass::kPunct: return kPunct;
    default: return {};
  }
}

// One code point as a regex escape: \x{HHHH}.
std::string escape(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\x{%X}", static_cast<unsigned>(cp));
  return buf;
}

}  // namespace

CharClass char_class(char32_t cp) {
  if (cp < 0x80) {  // fast path for ASCII
    if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return CharClass::kLetter;
    if (cp >= '0' && cp <= '9') return CharClass::kDigit;
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return CharClass::kWhitespace;
    return CharClass::kPunct;
  }
  if (in(kCjk, cp)) return CharClass::kCjk;
  if (in(kWhitespace, cp)) return CharClass::kWhitespace;
  if (in(kDigit, cp)) return CharClass::kDigit;
  if (in(kEmoji, cp)) return CharClass::kEmoji;  // before punct: U+2600-27BF overlaps it
  if (in(kPunct, cp)) return CharClass::kPunct;
  return CharClass::kLetter;
}

std::string char_class_regex_body(CharClass c) {
  std::string body;
  for (const Range& r : table_of(c)) {
    // Emoji wins over punctuation, so the punct class must leave out the emoji ranges.
    if (c == CharClass::kPunct && r.lo == 0x2100) {
      body += escape(0x2100) + "-" + escape(0x25FF) + escape(0x27C0) + "-" + escape(0x2B4F) +
              escape(0x2B56) + "-" + escape(0x2BFF);
      continue;
    }
    body += escape(r.lo);
    if (r.hi != r.lo) body += "-" + escape(r.hi);
  }
  return body;
}

}  // namespace llm0

