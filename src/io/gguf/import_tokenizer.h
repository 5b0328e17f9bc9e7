// The tokenizer of a GGUF file as a Hugging Face tokenizer.json: tokenizer.huggingface.json when
// the file has it and it agrees with tokenizer.ggml.tokens (io/gguf/import_hf_json.h; llm0's
// exporter writes it, llama.cpp's converters do not), else built from tokenizer.ggml.* (gguf-py
// constants.py Keys.Tokenizer):
//   gpt2 (byte-level BPE): tokens are byte-level strings and merges "a b" as in tokenizer.json;
//     CONTROL tokens become added_tokens; the pre-tokenizer is the one tokenizer.ggml.pre names
//     (llama.cpp llama-vocab.cpp's regexes, written as HF's tokenizer.json for that model family
//     writes them): gpt-2 -> ByteLevel(use_regex), llama-bpe -> Split(Llama 3 regex) + ByteLevel
//     (ignore_merges, as Llama 3), qwen2 -> Split(Qwen2 regex) + ByteLevel.
//   llama (SentencePiece-style): tokens, scores and token types -> io/sentencepiece_json.h.
// Trailing UNUSED tokens (the padding rows llm0's exporter and llama.cpp's converters add up to
// the embedding's row count) are dropped. Every string must be valid UTF-8 (GgufMeta refuses
// others by name): neither form stores raw bytes (gpt2 spells them as byte-level characters,
// llama as <0xXX> pieces); llama.cpp's rwkv form, which does, is refused by its model name.
#pragma once
#include <nlohmann/json.hpp>

#include "io/gguf/metadata.h"

namespace llm0 {

/// tokenizer.json of the GGUF tokenizer, for a model of `vocab_size` rows. Throws llm0::Error
/// naming the file and the key: tokenizer.ggml.model other than gpt2 or llama, a `pre` llm0
/// cannot express (named), missing tokens / merges / scores, arrays of different lengths, more
/// tokens than vocab_size, an unknown token type, a string that is not valid UTF-8 (named with
/// its index, byte and offset), add_space_prefix false, what sentencepiece_tokenizer_json
/// refuses, and what gguf_hf_tokenizer_json refuses (a tokenizer.huggingface.json that
/// disagrees with the tokens: the first such id named).
nlohmann::ordered_json gguf_tokenizer_json(const GgufMeta& meta, int vocab_size);

}  // namespace llm0
