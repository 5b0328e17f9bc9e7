// The vocabulary of a SentencePiece-style BPE tokenizer.json (tokenizer_pieces.cpp).
#pragma once
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace llm0 {

/// Vocabulary of a SentencePiece-style tokenizer.json.
struct PieceVocab {
  std::unordered_map<std::string, int> ids;  // model.vocab string -> id
  std::array<int, 256> byte_ids{};           // id of "<0xXX>", -1 when absent or no byte_fallback
  std::vector<char> is_byte;                 // [V] the token is a byte-fallback token
  int unk = -1;                              // model.unk_token, -1 if none
  bool fuse_unk = false, byte_fallback = false;
  std::string file_text;                     // the tokenizer.json's bytes (save() writes them back)
};

}  // namespace llm0
