// Unicode normalizers of tokenizer.json (HF tokenizers src/normalizers/unicode.rs: NFC, NFD,
// NFKC, NFKD), computed with Debian's libutf8proc (https://juliastrings.github.io/utf8proc/).
// Qwen2's tokenizer.json uses NFC. HF only sees valid UTF-8; here invalid bytes pass through
// unchanged and each valid stretch between them is normalized on its own.
#pragma once
#include <string>
#include <string_view>

namespace llm0 {

/// The normalization forms of Unicode UAX #15; None leaves text as it is.
enum class UnicodeForm { None, NFC, NFD, NFKC, NFKD };

/// `text` in normalization form `form`. Throws llm0::Error if utf8proc fails (out of memory).
std::string normalize_unicode(std::string_view text, UnicodeForm form);

}  // namespace llm0
