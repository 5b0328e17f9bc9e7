// tokenizer.json's "added_tokens" (HF tokenizers src/tokenizer/added_vocabulary.rs, AddedToken):
// tokens matched verbatim in the text before normalization and pre-tokenization (special ones such
// as <s>, and ordinary ones such as Gemma 3's <unused0> or DeepSeek-V3's <｜User｜>). Both loaders
// (byte-level, tokenizer_json.cpp; SentencePiece-style, tokenizer_pieces.cpp) read them here.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace llm0 {

/// One added token. lstrip / rstrip: the whitespace (Unicode White_Space) on its left / right is
/// part of the match, so it gives no token of its own (HF AddedToken; transformers.js trims the
/// neighbouring text, the same ids). special: decode(..., skip_special_tokens) leaves it out.
struct AddedToken {
  std::string content;  // non-empty UTF-8
  int id = 0;
  bool special = false, lstrip = false, rstrip = false, normalized = false;
};

/// Reads tokenizer.json `j`'s "added_tokens" (absent or null: none) from file `path`. Flags default
/// as HF's serde does (special, lstrip, rstrip, single_word false; normalized = !special).
/// `normalizer_is_identity`: the file's normalizer leaves every text as it is (null or an empty
/// Sequence), so a token with normalized true is matched in the raw text as HF matches it in the
/// normalized one. Throws llm0::Error naming "added_tokens[i]" for a missing or non-integer id (or
/// one outside [0, 2^24)), a missing or empty content, a flag that is not a boolean, single_word
/// true, or normalized true under a normalizer that changes text (both not implemented).
std::vector<AddedToken> added_tokens_from_json(const nlohmann::json& j, const std::string& path,
                                               bool normalizer_is_identity);

}  // namespace llm0
