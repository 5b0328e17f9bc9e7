// Pre-tokenization by the rules in pretokenize.h: a hand-written scanner over UTF-8 code points
// (faster than a regex engine and exact for invalid UTF-8), plus the equivalent regex.
#include "tokenizer/pretokenize.h"

#include "tokenizer/char_class.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

constexpr int kMaxDigits = 3;  // digits are grouped 1-3 at a time (rule 2)

// One unit of text: a code point or an invalid byte.
struct Unit { CharClass cls; int len; };

Unit unit_at(std::string_view text, size_t pos) {
  char32_t cp = 0;
  const int len = utf8_decode(text, pos, cp);
  if (len == 0) return {CharClass::kRawByte, 1};
  return {char_class(cp), len};
}

// Length of a contraction ('s 't 'm 'd 're 've 'll) at pos, or 0.
size_t contraction_at(std::string_view text, size_t pos) {
  if (text[pos] != '\'' || pos + 1 >= text.size()) return 0;
  const char a = text[pos + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (pos + 2 >= text.size()) return 0;
  const char b = text[pos + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// End of the run of class `cls` starting at pos (digits: at most kMaxDigits code points).
size_t run_end(std::string_view text, size_t pos, CharClass cls) {
  int count = 0;
  while (pos < text.size()) {
    const Unit u = unit_at(text, pos);
    if (u.cls != cls || (cls == CharClass::kDigit && count == kMaxDigits)) break;
    pos += u.len;
    ++count;
  }
  return pos;
}

bool space_joins(CharClass next) {
  return next != CharClass::kWhitespace && next != CharClass::kRawByte;
}

// Handles a whitespace run starting at pos (rules 3 and 4). Appends the pieces it completes
// and returns where the next piece starts (a space that joins the next run is left to it).
size_t whitespace_pieces(std::string_view text, size_t pos,
                         std::vector<std::string_view>& out) {
  size_t end = pos, last = pos;
  while (end < text.size()) {
    const Unit u = unit_at(text, end);
    if (u.cls != CharClass::kWhitespace) break;
    last = end;
    end += u.len;
  }
  if (end == text.size()) {  // trailing whitespace stays whole
    out.push_back(text.substr(pos, end - pos));
    return end;
  }
  if (last > pos) out.push_back(text.substr(pos, last - pos));
  if (text[last] == ' ' && space_joins(unit_at(text, end).cls)) return last;
  out.push_back(text.substr(last, end - last));
  return end;
}

}  // namespace

std::vector<std::string_view> pretokenize(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    if (const size_t n = contraction_at(text, pos)) {
      out.push_back(text.substr(pos, n));
      pos += n;
      continue;
    }
    size_t start = pos;
    Unit u = unit_at(text, pos);
    if (text[pos] == ' ' && pos + 1 < text.size()) {
      const Unit next = unit_at(text, pos + 1);
      if (space_joins(next.cls)) { u = next; pos += 1; }  // rule 3: " word"
    }
    if (start == pos && u.cls == CharClass::kWhitespace) {
      pos = whitespace_pieces(text, pos, out);
      continue;
    }
    pos = run_end(text, pos, u.cls);
    out.push_back(text.substr(start, pos - start));
  }
  return out;
}

std::string pretokenize_regex() {
  const std::string ws = char_class_regex_body(CharClass::kWhitespace);
  const std::string digit = char_class_regex_body(CharClass::kDigit);
  const std::string cjk = char_class_regex_body(CharClass::kCjk);
  const std::string emoji = char_class_regex_body(CharClass::kEmoji);
  const std::string punct = char_class_regex_body(CharClass::kPunct);
  const std::string letter = "[^" + ws + digit + cjk + emoji + punct + "]";
  return "'(?:[sdmt]|ll|ve|re)|[ ]?" + letter + "+|[ ]?[" + cjk + "]+|[ ]?[" + digit +
         "]{1,3}|[ ]?[" + emoji + "]+|[ ]?[" + punct + "]+|[" + ws + "]+(?![^" + ws + "])|[" +
         ws + "]+";
}

}  // namespace llm0
