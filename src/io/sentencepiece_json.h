// A SentencePiece-style BPE vocabulary (pieces, scores, token types: what a llama2.c tokenizer
// file and a GGUF `tokenizer.ggml.model = llama` hold) as a Hugging Face tokenizer.json, in the
// form transformers' LlamaConverter writes (convert_slow_tokenizer.py): BPE with byte_fallback and
// fuse_unk, normalizer Prepend("▁") + Replace(" " -> "▁"), decoder Replace/ByteFallback/Fuse/Strip,
// TemplateProcessing adding BOS. Merges come from the scores as SentencePieceExtractor derives
// them (below). Shared by io/llama2c_tokenizer.cpp and io/gguf/import_tokenizer.cpp.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0 {

/// llama.cpp's token types (llama_token_type; gguf-py constants.py TokenType), as stored in
/// GGUF's tokenizer.ggml.token_type.
enum class SpTokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

/// One vocabulary entry: the piece as SentencePiece spells it ("▁the", "<0x0A>", "<s>").
struct SpToken {
  std::string piece;
  float score = 0;
  SpTokenType type = SpTokenType::Normal;
};

/// The tokenizer.json of `tokens` (id = index). Merges: for every Normal piece p and every split
/// p = a + b into two Normal pieces, ranked by p's score (highest first), then p's id, a's id,
/// b's id (SentencePieceExtractor.extract: a stable sort by score over the vocab in id order, the
/// splits of one piece by their ids), so BPE by rank merges as SentencePiece / llama2.c's encode()
/// does. Unknown and Control tokens become added_tokens; the post_processor prepends token
/// `bos_id` when `add_bos` (else none). Throws llm0::Error prefixed by `where`: no Unknown token
/// or more than one, a Byte token not spelled <0xXX>, a UserDefined token (not supported), an
/// empty, repeated or non-UTF-8 piece, add_bos with a bos_id that is not a Control token.
nlohmann::ordered_json sentencepiece_tokenizer_json(const std::vector<SpToken>& tokens, int bos_id,
                                                   bool add_bos, const std::string& where);

/// "<0xXX>" (upper-case hex) for byte b in [0, 255].
std::string sentencepiece_byte_piece(int b);

}  // namespace llm0
