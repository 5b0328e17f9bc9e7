// Stop strings over streamed text (HF transformers StopStringCriteria, llama.cpp server "stop"):
// the generated text is searched for each stop string after every token, and the bytes that could
// still become the start of a stop string are held back from the stream until that is decided.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llm0 {

/// Earliest occurrence of any of `stops` in `text` that ends after byte `old_size` (text[0,
/// old_size) was searched before). Returns its byte offset, or std::string_view::npos; *which gets
/// the index of the stop string (the earlier-listed one on equal offsets).
size_t find_stop_string(std::string_view text, size_t old_size,
                        const std::vector<std::string>& stops, size_t* which);

/// Number of bytes at the end of `text` that are a proper prefix of some stop string (the longest
/// such suffix): these bytes must not be streamed yet. 0 when `stops` is empty.
size_t stop_string_holdback(std::string_view text, const std::vector<std::string>& stops);

}  // namespace llm0
