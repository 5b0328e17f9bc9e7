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
  Step step;
  step.regex = std::make_shared<const Regex>(pattern, literal, where);
  step.behavior = behavior;
  step.invert = invert;
  steps_.push_back(std::move(step));
}

void PreTokenizer::add_byte_level(bool add_prefix_space, bool use_regex) {
  if (add_prefix_space) steps_.push_back(Step{});
  if (use_regex) add_split(kGpt2Pattern, false, SplitBehavior::Isolated, false, "ByteLevel");
}

void PreTokenizer::add_digits(bool individual_digits) {
  // HF splits on char::is_numeric, one match per character: the same matches as \p{N}.
  add_split(R"(\p{N})", false,
            individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false, "Digits");
}

void PreTokenizer::add_metaspace(const std::string& replacement, PrependScheme scheme, bool split) {
  Step step;
  step.metaspace = true;
  step.replacement = replacement;
  step.scheme = scheme;
  step.behavior = SplitBehavior::MergedWithNext;
  if (split) step.regex = std::make_shared<const Regex>(replacement, true, "Metaspace");
  steps_.push_back(std::move(step));
}

namespace {
// Metaspace's rewrite of one piece (metaspace.rs pre_tokenize, before the split).
void metaspace_rewrite(std::string& piece, const std::string& rep, PrependScheme scheme, bool at_start) {
  std::string out;
  for (char c : piece) {
    if (c == ' ') out.append(rep);
    else out.push_back(c);
  }
  const bool prepend = scheme == PrependScheme::Always || (scheme == PrependScheme::First && at_start);
  if (prepend && out.compare(0, rep.size(), rep) != 0) out.insert(0, rep);
  piece = std::move(out);
}
}  // namespace

std::vector<std::string> PreTokenizer::split(std::string_view text, bool at_text_start) const {
  std::vector<std::pair<std::string, bool>> pieces;  // (piece, starts at offset 0 of the input)
  if (!text.empty()) pieces.emplace_back(text, at_text_start);
  for (const Step& step : steps_) {
    std::vector<std::pair<std::string, bool>> next;
    next.reserve(pieces.size());
    for (auto& [piece, at_start] : pieces) {
      if (step.metaspace) metaspace_rewrite(piece, step.replacement, step.scheme, at_start);
      if (!step.regex) {
        // ByteLevel add_prefix_space, applied to every piece (byte_level.rs)
        if (!step.metaspace && piece.front() != ' ') piece.insert(piece.begin(), ' ');
        next.emplace_back(std::move(piece), at_start);
        continue;
      }
      const auto ranges = split_ranges(piece.size(), step.regex->find_all(piece), step.behavior, step.invert);
      for (const MatchRange& r : ranges)
        next.emplace_back(piece.substr(r.first, r.second - r.first), at_start && r.first == 0);
    }
    pieces = std::move(next);
  }
  std::vector<std::string> out;
  out.reserve(pieces.size());
  for (auto& p : pieces) out.push_back(std::move(p.first));
  return out;
}

}  // namespace llm0
