// Verbatim special-token matching (see special_tokens.h). Keeps the next occurrence of each
// special cached, so each special's text is scanned once overall.
#include "tokenizer/special_tokens.h"

namespace llm0 {

std::vector<TextSegment> split_on_specials(std::string_view text,
                                           const std::vector<std::pair<std::string, int>>& specials) {
  std::vector<TextSegment> out;
  const size_t n = specials.size();
  std::vector<size_t> next(n, 0);  // next occurrence of special i at or after `pos`
  for (size_t i = 0; i < n; ++i)
    next[i] = specials[i].first.empty() ? std::string_view::npos : text.find(specials[i].first);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t best_at = std::string_view::npos, best = n;
    for (size_t i = 0; i < n; ++i) {
      if (next[i] != std::string_view::npos && next[i] < pos)
        next[i] = text.find(specials[i].first, pos);
      if (next[i] == std::string_view::npos) continue;
      if (next[i] < best_at ||
          (next[i] == best_at && specials[i].first.size() > specials[best].first.size())) {
        best_at = next[i];
        best = i;
      }
    }
    if (best == n) {
      out.push_back({text.substr(pos), -1});
      break;
    }
    if (best_at > pos) out.push_back({text.substr(pos, best_at - pos), -1});
    out.push_back({text.substr(best_at, specials[best].first.size()), specials[best].second});
    pos = best_at + specials[best].first.size();
  }
  return out;
}

}  // namespace llm0
