// Byte-level BPE tokenizer (GPT-2 style, arXiv:1508.07909 + Radford et al. 2019): text bytes ->
// special-token split -> pre-tokens (pretokenize.h) -> BPE merges by rank -> token ids.
// A loaded tokenizer.json may instead hold SentencePiece-style BPE (Llama 2, TinyLlama, llama2.c):
// merges over the normalized text's characters, byte fallback to <0xXX> tokens
// (tokenizer_pieces.cpp).
// Any byte string encodes (there is a token for every byte) and decode(encode(x)) == x.
// Ids of a trained tokenizer: 0..255 the single bytes, then one per merge in training order,
// then the special tokens. Saved and loaded as a Hugging Face tokenizer.json (model type BPE).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/bpe_encode.h"
#include "tokenizer/bpe_train.h"

namespace llm0 {

struct EncodeCache;  // pre-token -> ids, shared by copies (tokenizer.cpp)
struct TextRules;    // normalizer + pre-tokenizer of a loaded tokenizer.json (text_rules.h)
struct PieceVocab;   // SentencePiece-style vocabulary of a loaded tokenizer.json (tokenizer_pieces.cpp)
struct AddedToken;   // one entry of tokenizer.json's added_tokens (added_tokens.h)
struct TextSegment;  // ordinary text or one added token (special_tokens.h)

/// Byte-level BPE tokenizer. Immutable once built; encode() is thread-safe.
class Tokenizer {
 public:
  /// Trains on `documents` to `vocab_size` tokens in all: 256 byte tokens + merges + specials
  /// (fewer merges if the corpus runs out of pairs; vocab_size() then reports the real size).
  /// Tie-breaking (bpe_train.h): highest pair count, then smallest left id, then smallest
  /// right id. Special tokens inside documents are cut out before counting. Throws
  /// llm0::Error if vocab_size < 256 + number of specials, or a special is empty, repeated or
  /// not valid UTF-8 (tokenizer.json stores it as a JSON string).
  static Tokenizer train(const std::vector<std::string>& documents, int vocab_size,
                         const std::vector<std::string>& special_tokens = {"<|endoftext|>"});

  /// Loads a Hugging Face tokenizer.json with a byte-level BPE model (model.vocab, whose keys are
  /// byte-level strings except an added token's own entry, e.g. DeepSeek-V3's
  /// <｜begin▁of▁sentence｜>; model.merges as "a b" strings or [a, b] pairs, model.ignore_merges;
  /// added_tokens with their special / lstrip / rstrip / normalized flags, added_tokens.h), its
  /// normalizer and pre_tokenizer (text_rules.h: NFC..., Sequence, Split, ByteLevel, Digits;
  /// a file llm0 wrote keeps llm0's own scanner, pretokenize.h). Or a SentencePiece-style BPE
  /// file (model.byte_fallback true, or a decoder that is not ByteLevel): vocab strings taken
  /// as they are, model.unk_token, fuse_unk, byte_fallback ("<0xXX>" tokens); normalizers
  /// Prepend/Replace, Metaspace, decoders Replace/ByteFallback/Fuse/Strip/Metaspace (Gemma 3's
  /// Replace + Split(" ", MergedWithPrevious) too). encode() gives the ids
  /// of the text only; encode_with_special_tokens() adds what the post_processor says.
  /// Throws llm0::Error naming the file and the field on malformed input, and naming the
  /// component for a normalizer, pre-tokenizer, decoder or model llm0 does not implement.
  static Tokenizer load(const std::string& path);

  /// Writes tokenizer.json to `path` (via path + ".tmp", then rename); a loaded tokenizer keeps
  /// the normalizer and pre_tokenizer it was read with. Throws llm0::Error if the file cannot be
  /// written.
  void save(const std::string& path) const;

  /// Token ids of `text` (any bytes). Added tokens are matched verbatim first (leftmost, then
  /// longest), taking the whitespace beside them with lstrip / rstrip.
  std::vector<int> encode(std::string_view text) const;

  /// encode(text) between the ids the file's post_processor adds (TemplateProcessing, e.g. <s>
  /// before the text for Llama 2); encode(text) for a tokenizer whose post_processor adds none.
  std::vector<int> encode_with_special_tokens(std::string_view text) const;

  /// Ids the post_processor puts before the text (e.g. {<s>}); empty when it adds none.
  const std::vector<int>& prefix_ids() const;

  /// How many leading spaces decode() strips (the Strip decoder's start: the space of
  /// SentencePiece's dummy prefix); 0 for byte-level tokenizers.
  int decode_strip_start() const;

  /// The bytes of `ids` concatenated (added tokens give their text; `skip_special_tokens` leaves
  /// out the added tokens marked special, as HF's decode). SentencePiece-style: a run of byte
  /// tokens that is not valid UTF-8 gives U+FFFD per byte, then the Strip decoder applies (as HF
  /// tokenizers' decode). Throws on an id outside [0, vocab_size()).
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens = false) const;

  /// Raw bytes of one token (may end inside a UTF-8 character: stream through
  /// infer/utf8_stream.h's Utf8Stream). Throws on an id out of range.
  const std::string& token_bytes(int id) const;

  /// Number of tokens, specials included.
  int vocab_size() const { return static_cast<int>(tokens_.size()); }

  /// Id of special token `token`. Throws llm0::Error if it is not a special token.
  int special_id(std::string_view token) const;

  /// Id of <|endoftext|>. Throws llm0::Error if the tokenizer has none.
  int eos_id() const { return special_id("<|endoftext|>"); }

  /// Merge rules in rank order (ids of left and right token).
  const std::vector<BpeMerge>& merges() const { return merges_; }

  /// Added tokens (special or not) as (text, id), in id order.
  const std::vector<std::pair<std::string, int>>& special_tokens() const { return specials_; }

 private:
  Tokenizer() = default;
  // Checks consistency and builds the derived tables; `where` prefixes error messages.
  void finish(const std::string& where);
  // Records tokenizer.json's added_tokens (specials_, added_flags_); returns them.
  std::vector<AddedToken> take_added_tokens(const nlohmann::json& j, const std::string& path);
  // Drops the whitespace that lstrip / rstrip added tokens take from their neighbours.
  void strip_beside_added(std::vector<TextSegment>& segments) const;
  void encode_ordinary(std::string_view text, std::vector<int>& out) const;
  void encode_piece(std::string_view piece, std::vector<int>& out) const;
  // SentencePiece-style BPE (tokenizer_pieces.cpp).
  void load_pieces(const nlohmann::json& j, const std::string& path, std::string file_text);
  void encode_pieces(std::string_view text, bool at_text_start, std::vector<int>& out) const;
  void encode_char_piece(std::string_view piece, std::vector<int>& out) const;
  std::string decode_pieces(const std::vector<int>& ids) const;

  std::vector<std::string> tokens_;                    // [V] raw bytes of each id
  std::vector<BpeMerge> merges_;                       // rank order
  std::vector<std::pair<std::string, int>> specials_;  // (text, id) of every added token
  enum AddedFlag : uint8_t { kSpecial = 1, kLstrip = 2, kRstrip = 4 };
  std::vector<uint8_t> added_flags_;                   // [V] AddedFlag bits, 0: not added
  std::array<int, 256> byte_ids_{};                    // id of each single byte
  MergeTable merge_table_;                             // (left, right) -> (rank, id)
  std::shared_ptr<EncodeCache> cache_;
  std::shared_ptr<const TextRules> rules_;             // null: llm0's own rules (trained here)
  bool ignore_merges_ = false;                         // HF BPE: a piece in the vocab is one token
  std::unordered_map<std::string, int> piece_ids_;     // ordinary token bytes -> id (ignore_merges)
  std::shared_ptr<const PieceVocab> pieces_;           // null: byte-level BPE
};

}  // namespace llm0
