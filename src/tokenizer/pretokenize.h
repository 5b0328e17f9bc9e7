// Pre-tokenization: split text into pieces ("pre-tokens") before BPE, so merges never cross a
// piece boundary. GPT-2 style (openai/gpt-2 encoder.py pattern), with CJK, emoji and raw bytes
// as classes of their own and digits in groups of at most 3. Rules, applied left to right:
//   1. An apostrophe starting 's 't 'm 'd 're 've 'll (lower case) is one piece with them.
//   2. Maximal runs of one class are pieces: letters, CJK, emoji, punctuation, invalid UTF-8
//      bytes; digits in runs of at most 3 ("12345" -> "123" "45"). Classes: char_class.h.
//   3. One ASCII space directly before a letter/CJK/digit/emoji/punctuation run joins it
//      (" world", " 123"), as in GPT-2's " ?\p{L}+".
//   4. A whitespace run followed by non-whitespace loses its last character, which becomes its
//      own piece unless rule 3 attaches it ("a   b" -> "a" "  " " b"; "\n\nb" -> "\n" "\n" "b",
//      GPT-2's "\s+(?!\S)|\s+"); a whitespace run at the end of the text stays whole.
// The pieces concatenate back to the input exactly, for any byte string.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace llm0 {

/// Splits `text` into pre-tokens (views into `text`) by the rules above; their concatenation
/// equals `text`. Empty input gives no pieces.
std::vector<std::string_view> pretokenize(std::string_view text);

/// The same rules as one regex (Oniguruma syntax, code points as \x{...}), for the "Split"
/// pre-tokenizer of tokenizer.json. It cannot express rule 2 for invalid UTF-8 (HF only sees
/// valid strings).
std::string pretokenize_regex();

}  // namespace llm0
