// Character classes for pre-tokenization: every code point falls in exactly one class, defined
// by the code-point range tables in char_class.cpp (no ICU). The same tables generate the regex
// written to tokenizer.json, so Hugging Face tokenizers splits text the way llm0 does.
#pragma once
#include <string>

namespace llm0 {

/// The class of one code point (or of one invalid UTF-8 byte: kRawByte).
enum class CharClass {
  kLetter,      // everything not listed below: Latin, Greek, Cyrillic, Arabic, combining marks, ...
  kCjk,         // Han ideographs (BMP, Ext A-F, compatibility), kana, Hangul syllables
  kDigit,       // 0-9 and fullwidth ０-９
  kWhitespace,  // Unicode White_Space: \t \n \v \f \r space U+0085 U+00A0 U+1680 U+2000-200A ...
  kPunct,       // ASCII punctuation and controls, Latin-1 symbols, general/CJK/fullwidth punctuation
  kEmoji,       // pictographs U+1F000-1FAFF, U+2600-27BF, plus ZWJ, variation selectors, keycap
  kRawByte,     // a byte that does not start valid UTF-8
};

/// Class of code point `cp` (never kRawByte).
CharClass char_class(char32_t cp);

/// The code points of class `c` (not kLetter / kRawByte) as a regex character-class body, e.g.
/// "0-9\\x{FF10}-\\x{FF19}" (Oniguruma/PCRE syntax), for the tokenizer.json Split pattern.
std::string char_class_regex_body(CharClass c);

}  // namespace llm0
