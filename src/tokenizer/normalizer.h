// Normalizers of tokenizer.json: the Unicode forms (HF tokenizers src/normalizers/unicode.rs: NFC,
// NFD, NFKC, NFKD, computed with Debian's libutf8proc, https://juliastrings.github.io/utf8proc/),
// and Prepend / Replace (src/normalizers/{prepend,replace}.rs) that SentencePiece-style files use.
// Qwen2's tokenizer.json uses NFC. HF only sees valid UTF-8; here invalid bytes pass through
// unchanged and each valid stretch between them is normalized on its own.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace llm0 {

/// The normalization forms of Unicode UAX #15; None leaves text as it is.
enum class UnicodeForm { None, NFC, NFD, NFKC, NFKD };

/// `text` in normalization form `form`. Throws llm0::Error if utf8proc fails (out of memory).
std::string normalize_unicode(std::string_view text, UnicodeForm form);

/// One normalizer of a Sequence: a Unicode form, Prepend(text) (only to a non-empty string, as
/// HF), or Replace(a literal pattern -> content, every occurrence, left to right).
struct NormalizerStep {
  enum class Kind { Unicode, Prepend, Replace } kind = Kind::Unicode;
  UnicodeForm form = UnicodeForm::None;
  std::string pattern, content;  // Prepend: content; Replace: pattern -> content
};

/// `text` after every step of `steps`, in order.
std::string normalize(std::string_view text, const std::vector<NormalizerStep>& steps);

}  // namespace llm0
