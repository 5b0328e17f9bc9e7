// Byte-level BPE training (Sennrich et al. 2016, arXiv:1508.07909; GPT-2's byte-level variant).
// Works on unique pre-token words with counts and updates pair counts incrementally after each
// merge (as Hugging Face tokenizers' BpeTrainer does), with a max-heap under lazy invalidation.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llm0 {

/// One merge rule: adjacent tokens `left`, `right` (ids) become one new token.
struct BpeMerge {
  int left = 0;
  int right = 0;
  bool operator==(const BpeMerge&) const = default;
};

/// What training learns: the token byte strings (ids are indices) and the merges in rank order.
struct BpeTrainResult {
  std::vector<std::string> tokens;  // tokens[b] = the single byte b for b < 256
  std::vector<BpeMerge> merges;     // merge i joins tokens[left] + tokens[right]
};

/// Learns merges from `word_counts` (pre-token bytes, occurrence count) until there are
/// `max_tokens` tokens or no adjacent pair is left. Byte b is token b; a merge whose bytes are
/// new gets the next id (256, 257, ...); one whose bytes already exist (two merge paths to the
/// same string, rare) reuses that id, as Hugging Face's BpeTrainer does. Each step merges the
/// adjacent pair with the highest total count; ties go to the smallest left id, then the
/// smallest right id (the result does not depend on hash or input order). Occurrences inside a
/// word merge left to right without overlap ("aaa" + (a,a) -> "Xa").
/// Throws llm0::Error if max_tokens < 256.
BpeTrainResult bpe_train(const std::vector<std::pair<std::string, int64_t>>& word_counts,
                         int max_tokens);

}  // namespace llm0
