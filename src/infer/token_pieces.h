// Tokens as the lesson pages and the attention maps show them: each id with its own piece of text
// (the token's raw bytes; bytes that are not part of a whole UTF-8 character written as <0xNN>, so
// a CJK character split over two byte-level tokens still shows what each token holds).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.h"

namespace llm0 {

/// The token's bytes as text: valid UTF-8 runs kept, any other byte as "<0xNN>" (upper-case hex).
/// Throws llm0::Error for an id outside the vocabulary.
std::string token_piece(const Tokenizer& tok, int id);

/// [{"id": id, "text": token_piece(id)}, ...]
nlohmann::json token_pieces_json(const Tokenizer& tok, const std::vector<int>& ids);

}  // namespace llm0
