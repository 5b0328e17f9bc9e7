// Applying learned BPE merges to one pre-token: the lowest-rank adjacent pair merges first,
// leftmost first among equal ranks, until no adjacent pair has a merge rule (GPT-2's
// encoder.py bpe(); Hugging Face tokenizers' Word::merge_all). O(n log n) in the word length.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llm0 {

/// A merge rule as the encoder sees it: its rank (training order) and the token it produces.
struct MergeRule {
  int rank = 0;
  int id = 0;
};

/// (left id, right id) -> rule, keyed by merge_key(left, right).
using MergeTable = std::unordered_map<uint64_t, MergeRule>;

/// The MergeTable key of the pair (left, right).
inline uint64_t merge_key(int left, int right) {
  return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
}

/// Appends the token ids of `word` (raw bytes, one pre-token) to `out`: starts from the byte
/// tokens byte_ids[b] and applies `table` lowest rank first. Empty word appends nothing.
void bpe_encode_word(std::string_view word, const std::array<int, 256>& byte_ids,
                     const MergeTable& table, std::vector<int>& out);

/// Appends to `out` the ids left after applying `table` (lowest rank first, leftmost among
/// equal ranks) to the initial symbols `ids` (e.g. one per character, SentencePiece-style BPE).
void bpe_merge_symbols(const std::vector<int>& ids, const MergeTable& table, std::vector<int>& out);

}  // namespace llm0
