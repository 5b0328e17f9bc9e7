// Fields of tokenizer.json's BPE model that both loaders read (byte-level, tokenizer_json.cpp;
// SentencePiece-style, tokenizer_pieces.cpp): a model.vocab entry's id and a model.merges entry
// (HF tokenizers src/models/bpe/serialization.rs: "left right" strings, or [left, right] pairs
// since tokenizers 0.20, as Gemma 3's and gpt-oss's files have them).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace llm0 {

/// Largest vocabulary llm0 accepts (ids in [0, 2^24)): absurd ids are refused before allocating.
inline constexpr int kMaxVocabIds = 1 << 24;

/// The id `value` of model.vocab[`key`] in file `path`. Throws llm0::Error naming the key unless it
/// is an integer in [0, kMaxVocabIds).
int vocab_id(const std::string& key, const nlohmann::json& value, const std::string& path);

/// The two token strings of model.merges[`i`] = `m` ("a b" or ["a", "b"]) in file `path`. Throws
/// llm0::Error naming model.merges[i] for anything else (a string without exactly one space
/// between two non-empty parts, an array that is not two strings).
std::pair<std::string, std::string> merge_parts(const nlohmann::json& m, const std::string& path, size_t i);

/// Token strings by id, as model.vocab and added_tokens fill them.
struct TokenTable {
  /// `entries`: how many vocab and added entries there are; ids must be below it (else the ids
  /// 0..N-1 cannot all be used), so nothing is sized by an absurd id.
  explicit TokenTable(size_t entries) : by_id(entries) {}
  std::vector<std::optional<std::string>> by_id;  // [entries] empty where no entry named the id

  /// Records model.vocab's `id` -> `token`; throws llm0::Error if the id was already used.
  void add_vocab(int id, std::string token, const std::string& path);
  /// Records an added token (it may replace the vocab entry of its id).
  void add_added(int id, std::string token, const std::string& path);
  /// The strings, id order. Throws llm0::Error unless every id 0..N-1 is used (N: the highest + 1).
  std::vector<std::string> take(const std::string& path);
};

}  // namespace llm0
