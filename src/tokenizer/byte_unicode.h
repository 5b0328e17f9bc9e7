// GPT-2's byte <-> unicode mapping (openai/gpt-2 encoder.py bytes_to_unicode): every byte gets a
// printable code point, so token byte strings can be written as JSON strings in tokenizer.json.
// Bytes 33-126, 161-172 and 174-255 map to themselves; the other 68 bytes map, in increasing
// order, to U+0100, U+0101, ... (so ' ' = 0x20 -> U+0120 'Ġ', '\n' -> U+010A 'Ċ').
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace llm0 {

/// The code point GPT-2's table assigns to byte `b`.
char32_t byte_to_unicode(unsigned char b);

/// Raw bytes -> byte-level string (UTF-8 of the mapped code points), as stored in tokenizer.json.
std::string bytes_to_byte_level(std::string_view bytes);

/// Byte-level string -> raw bytes; nullopt if `s` is not valid UTF-8 or holds a code point
/// outside the table's image.
std::optional<std::string> byte_level_to_bytes(std::string_view s);

}  // namespace llm0
