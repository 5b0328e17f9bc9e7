// llama2.c tokenizer files (run.c build_tokenizer; tokenizer.py export): int32 max_token_length,
// then per token: float32 score, int32 length, `length` bytes. The vocabulary size is not stored:
// the tokens run to the end of the file. Pieces are SentencePiece's with "▁" written as " ";
// ids 0..2 are <unk>, <s>, </s> (stored as "<unk>", "\n<s>\n", "\n</s>\n"), then byte tokens
// "<0x00>".."<0xFF>". Converted to a Hugging Face tokenizer.json in the SentencePiece-BPE form
// that transformers' LlamaConverter writes (byte fallback, Prepend/Replace normalizer, decoder
// Replace/ByteFallback/Fuse/Strip, TemplateProcessing adding <s>).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0 {

/// One token of a llama2.c tokenizer file.
struct Llama2cToken {
  std::string piece;  // bytes as stored (" " for SentencePiece's "▁")
  float score = 0;    // SentencePiece score: llama2.c merges the best-scoring pair first
};

/// Reads every token of `path`. Throws llm0::Error naming the file for an unreadable file, a
/// negative or oversized length, or a token cut off by the end of the file.
std::vector<Llama2cToken> read_llama2c_tokenizer(const std::string& path);

/// The tokenizer.json of `tokens`. Merges: for each ordinary piece p of two or more characters,
/// every split p = a + b with a and b ordinary pieces, ranked by p's score (highest first, then
/// p's id, then a's id), so BPE by rank merges as llama2.c's encode() does (the pair whose merged
/// piece scores best). Throws llm0::Error (prefixed by `where`) when ids 0..2 are not <unk>, <s>,
/// </s>, the 256 byte tokens are not ids 3..258, a piece repeats or is not valid UTF-8.
nlohmann::ordered_json llama2c_tokenizer_json(const std::vector<Llama2cToken>& tokens,
                                              const std::string& where);

}  // namespace llm0
