// Hugging Face pre-tokenizers read from tokenizer.json (huggingface/tokenizers
// src/pre_tokenizers/{sequence,split,byte_level,digits}.rs and NormalizedString::split in
// src/tokenizer/normalizer.rs). Each one cuts every current piece into smaller pieces:
//   Split(pattern, behavior, invert)  regex matches (regex.h) cut the piece (split_ranges below)
//   ByteLevel(add_prefix_space, use_regex)  " " before a piece not starting with one, then the
//                                           GPT-2 pattern, Isolated
//   Digits(individual_digits)         \p{N} characters: each alone, or runs (Contiguous)
//   Metaspace(replacement, prepend_scheme, split)  " " -> replacement; the replacement put in
//                                     front (always, first = only at the start of the text, never)
//                                     unless already there; then cut before each replacement
//                                     (split, MergedWithNext) (metaspace.rs)
//   Sequence                          the steps one after another
// Byte-level BPE sees raw bytes, so ByteLevel's byte->unicode mapping has nothing to do here.
// llm0's own tokenizers keep their own scanner (pretokenize.h); see Tokenizer::load.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/regex.h"

namespace llm0 {

/// What Split does with a match (HF SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

/// The GPT-2 pattern that ByteLevel(use_regex=true) applies (HF byte_level.rs, RE).
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// Byte ranges of the pieces a Split makes of a text of `size` bytes with these regex
/// `matches` (sorted, non-overlapping), as HF's NormalizedString::split: the text is cut into
/// matched and unmatched runs (`invert` swaps which is which), then Removed drops the matched
/// runs, Isolated keeps every run, MergedWithPrevious / MergedWithNext glue each matched run to
/// the run before / after it, Contiguous merges neighbouring runs of the same kind. Empty
/// pieces are dropped (PreTokenizedString::split).
std::vector<MatchRange> split_ranges(size_t size, const std::vector<MatchRange>& matches,
                                     SplitBehavior behavior, bool invert);

/// Metaspace's prepend_scheme (HF PrependScheme).
enum class PrependScheme { Always, First, Never };

/// A chain of pre-tokenization steps. Immutable once built; split() is thread-safe.
class PreTokenizer {
 public:
  /// Appends Split(pattern, behavior, invert); `pattern` is a regex or, with `literal`, plain
  /// text. Throws llm0::Error (prefixed by `where`) if the regex does not compile.
  void add_split(std::string_view pattern, bool literal, SplitBehavior behavior, bool invert,
                 const std::string& where);
  /// Appends ByteLevel(add_prefix_space, use_regex).
  void add_byte_level(bool add_prefix_space, bool use_regex);
  /// Appends Digits(individual_digits).
  void add_digits(bool individual_digits);

  /// Appends Metaspace(replacement, prepend_scheme, split).
  void add_metaspace(const std::string& replacement, PrependScheme scheme, bool split);

  /// Pieces of `text` after every step (the whole text if there is no step; none if empty).
  /// `at_text_start`: `text` begins the whole input (not after a special token), which
  /// Metaspace's prepend_scheme "first" asks (HF: offsets_original().0 == 0).
  std::vector<std::string> split(std::string_view text, bool at_text_start = true) const;

 private:
  struct Step {
    std::shared_ptr<const Regex> regex;  // null: the prefix-space step (or Metaspace's prepend)
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;
    bool metaspace = false;              // Metaspace: replace and prepend, then `regex` if split
    std::string replacement;
    PrependScheme scheme = PrependScheme::Always;
  };
  std::vector<Step> steps_;
};

}  // namespace llm0
