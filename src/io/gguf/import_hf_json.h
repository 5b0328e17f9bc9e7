// tokenizer.huggingface.json of a GGUF file (ggml docs/gguf.md, "Hugging Face": the whole HF
// tokenizer.json as a string; gguf-py constants.py Keys.Tokenizer.HF_JSON), taken over by the
// importer in preference to tokenizer.ggml.* when present, so that a tokenizer whose rules the
// ggml keys cannot name (llm0's own pre-tokenizer: digit groups of 3, CJK and emoji runs apart)
// comes back exactly. It must describe the same vocabulary as tokenizer.ggml.tokens, which is what
// llama.cpp runs: the key is trusted only when the two agree token for token.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/gguf/metadata.h"

namespace llm0 {

/// The parsed tokenizer.huggingface.json, or nullopt when the file has no such key. `tokens` are
/// tokenizer.ggml.tokens without their trailing UNUSED padding rows. Its token text per id is
/// model.vocab's key, or the added_tokens entry's content for the ids added_tokens lists
/// (tokenizer.json's own precedence; llm0's exporter writes added tokens verbatim too). Throws
/// llm0::Error naming the file and the key: not a string, not valid UTF-8, not valid JSON (byte
/// position) or nested deeper than kMaxJsonDepth (core/json_parse.h), no model.vocab object, a non-integer or negative id, two texts for one id, a token
/// count other than tokens.size(), or the first id whose text differs from tokens[id] (both named).
std::optional<nlohmann::ordered_json> gguf_hf_tokenizer_json(const GgufMeta& meta,
                                                            const std::vector<std::string>& tokens);

}  // namespace llm0
