// UTF-8 decoding for the tokenizer: one code point at a time, strict (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF). Invalid bytes are reported, never replaced,
// so byte-level BPE can keep them as raw bytes and decode(encode(x)) == x for any byte string.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace llm0 {

/// Decodes the code point starting at text[pos] into `cp`. Returns its length in bytes (1..4),
/// or 0 if the bytes at `pos` do not start a valid UTF-8 sequence (then `cp` is unspecified and
/// the caller should treat text[pos] as one raw byte). Requires pos < text.size().
int utf8_decode(std::string_view text, size_t pos, char32_t& cp);

/// True if all of `text` is valid UTF-8 (strict, as utf8_decode).
bool utf8_valid(std::string_view text);

/// Byte offset of the first byte of `text` that does not start a valid UTF-8 sequence (strict,
/// as utf8_decode), or text.size() when all of it is valid. For error messages that name the
/// offending byte ("byte 0xFF at offset 3").
size_t utf8_invalid_offset(std::string_view text);

/// Appends the UTF-8 encoding of `cp` (<= U+10FFFF) to `out`.
void utf8_append(std::string& out, char32_t cp);

}  // namespace llm0
