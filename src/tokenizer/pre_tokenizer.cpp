// PreTokenizer and split_ranges (see pre_tokenizer.h); the behaviours follow HF
// tokenizers src/tokenizer/normalizer.rs, NormalizedString::split, case by case.
#include "tokenizer/pre_tokenizer.h"

#include <algorithm>

namespace llm0 {

namespace {

struct Run {
  MatchRange range;
  bool matched;
};

// The text cut into matched and unmatched runs, in order (HF Pattern::find_matches).
std::vector<Run> runs_of(size_t size, const std::vector<MatchRange>& matches, bool invert) {
  std::vector<Run> runs;
  size_t prev = 0;
  for (const MatchRange& m : matches) {
    if (prev != m.first) runs.push_back({{prev, m.first}, invert});
    runs.push_back({m, !invert});
    prev = m.second;
  }
  if (prev != size) runs.push_back({{prev, size}, invert});
  return runs;
}

}  // namespace

std::vector<MatchRange> split_ranges(size_t size, const std::vector<MatchRange>& matches,
                                     SplitBehavior behavior, bool invert) {
  const std::vector<Run> runs = runs_of(size, matches, invert);
  std::vector<MatchRange> out;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Removed:
      for (const Run& r : runs) if (!r.matched) out.push_back(r.range);
      break;
    case SplitBehavior::Isolated:
      for (const Run& r : runs) out.push_back(r.range);
      break;
    case SplitBehavior::Contiguous:
      for (const Run& r : runs) {
        if (r.matched == previous_match && !out.empty()) out.back().second = r.range.second;
        else out.push_back(r.range);
        previous_match = r.matched;
      }
      break;
    case SplitBehavior::MergedWithPrevious:
      for (const Run& r : runs) {
        if (r.matched && !previous_match && !out.empty()) out.back().second = r.range.second;
        else out.push_back(r.range);
        previous_match = r.matched;
      }
      break;
    case SplitBehavior::MergedWithNext:  // the same walk from the end
      for (auto r = runs.rbegin(); r != runs.rend(); ++r) {
        if (r->matched && !previous_match && !out.empty()) out.back().first = r->range.first;
        else out.push_back(r->range);
        previous_match = r->matched;
      }
      std::reverse(out.begin(), out.end());
      break;
  }
  std::erase_if(out, [](const MatchRange& r) { return r.first == r.second; });
  return out;
}

void PreTokenizer::add_split(std::string_view pattern, bool literal, SplitBehavior behavior,
                             bool invert, const std::string& where) {
  steps_.push_back({std::make_shared<const Regex>(pattern, literal, where), behavior, invert});
}

void PreTokenizer::add_byte_level(bool add_prefix_space, bool use_regex) {
  if (add_prefix_space) steps_.push_back({nullptr, SplitBehavior::Isolated, false});
  if (use_regex) add_split(kGpt2Pattern, false, SplitBehavior::Isolated, false, "ByteLevel");
}

void PreTokenizer::add_digits(bool individual_digits) {
  // HF splits on char::is_numeric, one match per character: the same matches as \p{N}.
  add_split(R"(\p{N})", false,
            individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false, "Digits");
}

std::vector<std::string> PreTokenizer::split(std::string_view text) const {
  std::vector<std::string> pieces;
  if (!text.empty()) pieces.emplace_back(text);
  for (const Step& step : steps_) {
    std::vector<std::string> next;
    next.reserve(pieces.size());
    for (std::string& piece : pieces) {
      if (!step.regex) {  // ByteLevel add_prefix_space, applied to every piece (byte_level.rs)
        if (piece.front() != ' ') piece.insert(piece.begin(), ' ');
        next.push_back(std::move(piece));
        continue;
      }
      const auto ranges = split_ranges(piece.size(), step.regex->find_all(piece), step.behavior, step.invert);
      for (const MatchRange& r : ranges) next.push_back(piece.substr(r.first, r.second - r.first));
    }
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace llm0
