// Unicode regular expressions for tokenizer.json's Split pre-tokenizer: a thin owner of a PCRE2
// pattern (Debian's libpcre2-8, https://www.pcre.org/current/doc/html/) compiled in UTF mode with
// Unicode properties (PCRE2_UTF | PCRE2_UCP), so \p{L}, \p{N}, \s and (?i:...) mean what they mean
// in the Oniguruma patterns Hugging Face tokenizers uses. Invalid UTF-8 in the subject never
// matches (PCRE2_MATCH_INVALID_UTF) instead of being an error, so any byte string can be searched.
// One known difference from Oniguruma: PCRE2's \s also matches U+180E MONGOLIAN VOWEL SEPARATOR
// (whitespace before Unicode 6.3); the golden tests leave that character out.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llm0 {

/// Byte range [first, second) of one match in the subject.
using MatchRange = std::pair<size_t, size_t>;

/// A compiled pattern. Immutable after construction; find_all() is thread-safe.
class Regex {
 public:
  /// Compiles `pattern` (PCRE2 syntax; `literal`: the text itself, as HF's {"String": ...}).
  /// Throws llm0::Error "<where>: cannot compile regex ...: <PCRE2 message> at offset N".
  Regex(std::string_view pattern, bool literal, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// Every non-overlapping match of the pattern in `text`, left to right (as Rust's
  /// find_iter, which HF's onig binding follows: an empty match right where the previous
  /// match ended is skipped and the search moves on by one character).
  std::vector<MatchRange> find_all(std::string_view text) const;

 private:
  struct Code;
  std::unique_ptr<Code> code_;
};

}  // namespace llm0
