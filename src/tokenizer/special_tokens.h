// Special tokens (e.g. <|endoftext|>) are matched verbatim in the raw text before
// pre-tokenization, so they are never split and never merged with their neighbours.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llm0 {

/// A piece of text: either ordinary text (special_id = -1) or one special token occurrence.
struct TextSegment {
  std::string_view text;
  int special_id = -1;
};

/// Splits `text` at every occurrence of a special token (content, id). Scans left to right;
/// at a position where several specials match, the longest wins. Ordinary segments are never
/// empty. Cost O(text size x number of specials).
std::vector<TextSegment> split_on_specials(std::string_view text,
                                           const std::vector<std::pair<std::string, int>>& specials);

}  // namespace llm0
