// Python's str operations on UTF-8 text, by code point as Python counts (len("中文") == 2):
// decoding, strip() with Python's whitespace or given characters, upper()/lower().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace llm0::chat {

/// The code point at s[pos], advancing pos past it (a byte that starts no valid UTF-8 sequence
/// reads as U+FFFD, one byte).
uint32_t utf8_next(std::string_view s, size_t& pos);
/// All code points of `s`.
std::u32string utf8_code_points(std::string_view s);
/// Appends the UTF-8 of `cp`.
void utf8_append(std::string& out, uint32_t cp);
/// UTF-8 of code points.
std::string utf8_text(std::u32string_view cps);

/// Python's str.isspace() for one code point (the whitespace Jinja2's "-" and trim strip).
bool is_py_space(uint32_t cp);

/// Python's s.strip(chars) / lstrip / rstrip: `chars` == nullptr strips whitespace (is_py_space).
std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right);
inline std::string rstrip_py(std::string_view s) { return py_strip(s, nullptr, false, true); }

/// Python's s.upper() / s.lower() for ASCII, Latin-1, Greek and Cyrillic letters (other code
/// points are kept: the scripts chat templates meet have no case).
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);

}  // namespace llm0::chat
