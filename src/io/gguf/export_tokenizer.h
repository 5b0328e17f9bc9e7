// The tokenizer keys of an exported GGUF (gguf-py constants.py Keys.Tokenizer; token types are
// llama.cpp's llama_token_type: 1 normal, 2 unknown, 3 control, 5 unused, 6 byte).
//   Byte-level BPE -> tokenizer.ggml.model "gpt2": tokens as byte-level strings (specials
//     verbatim), merges "left right", pre "gpt-2" (llama-vocab.cpp LLAMA_VOCAB_PRE_TYPE_GPT2, the
//     closest to llm0's rules, tokenizer/pretokenize.h). llm0's trained tokenizers also split
//     digit runs into groups of at most 3 and keep CJK and emoji runs apart, which llama.cpp's
//     gpt-2 regex does not: llama.cpp itself tokenizes such text differently, so the parity tests
//     with llama.cpp feed token ids, never text.
//   SentencePiece-style BPE (byte_fallback; io/sentencepiece_json.h) -> "llama": the pieces
//     ("▁the", "<0x0A>"), scores and token types that llama.cpp's SPM tokenizer merges by (the
//     bigram whose merged piece scores highest, leftmost first). tokenizer.json keeps merges, not
//     scores, so piece p gets score −(rank of the first merge producing p): merging by highest
//     score is then merging by lowest rank, and the importer derives the same merges back (a
//     piece no merge produces gets −(number of merges + 1)).
// Rows of the embedding past the tokenizer are "[PAD{id}]" tokens of type unused.
// Both forms also carry tokenizer.huggingface.json (docs/gguf.md: the whole HF tokenizer.json as a
// string; llama.cpp ignores it): the file as it is, so that llm0's import gives back exactly the
// same tokenizer (its own pre-tokenizer included) and the same ids (io/gguf/import_tokenizer.h).
#pragma once
#include <string>

#include "config/config.h"
#include "io/gguf/writer.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// Adds the tokenizer.ggml.* keys for `tok`, loaded from `tokenizer_json` (read again for the
/// SentencePiece pieces), for a model of config `c` (BOS/EOS ids from it, else <|endoftext|>),
/// and tokenizer.huggingface.json = the bytes of `tokenizer_json`.
/// Throws llm0::Error when the tokenizer has more tokens than vocab_size, or a SentencePiece file
/// without an unk_token in its vocab.
void add_gguf_tokenizer(GgufWriter& g, const Tokenizer& tok, const std::string& tokenizer_json,
                        const ModelConfig& c);

}  // namespace llm0
