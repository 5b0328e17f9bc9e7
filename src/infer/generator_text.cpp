// Stop-string search and hold-back for streamed generation. See generator_text.h.
#include "infer/generator_text.h"

#include <algorithm>

namespace llm0 {

size_t find_stop_string(std::string_view text, size_t old_size,
                        const std::vector<std::string>& stops, size_t* which) {
  size_t best = std::string_view::npos;
  for (size_t i = 0; i < stops.size(); ++i) {
    const std::string& s = stops[i];
    if (s.empty() || s.size() > text.size()) continue;
    // An occurrence ending inside text[0, old_size) would have been found before.
    const size_t from = old_size >= s.size() ? old_size - s.size() + 1 : 0;
    const size_t at = text.find(s, from);
    if (at < best) best = at, *which = i;
  }
  return best;
}

size_t stop_string_holdback(std::string_view text, const std::vector<std::string>& stops) {
  size_t hold = 0;
  for (const std::string& s : stops) {
    // Longest k < |s| with text ending in s[0, k).
    for (size_t k = std::min(s.size() - (s.empty() ? 0 : 1), text.size()); k > hold; --k)
      if (text.substr(text.size() - k) == std::string_view(s).substr(0, k)) {
        hold = k;
        break;
      }
  }
  return hold;
}

}  // namespace llm0
