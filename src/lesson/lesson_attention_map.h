// `llm0 lesson attention-map` and the explorer's attention-map lesson: the attention map
// (infer/attention_map.h) of a loaded checkpoint.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "infer/attention_map.h"
#include "infer/generator_io.h"

namespace llm0::lesson {

/// Longest sentence (tokens) the map is computed for (infer/attention_map.h).
constexpr int kAttentionMapMaxTokens = llm0::kAttentionMapMaxTokens;

/// llm0::attention_map_json on the loaded model and its tokenizer (docs/explore-api.md
/// "attention-map"); throws what it throws.
inline nlohmann::json attention_map_json(GenerationModel& m, const std::string& model_name,
                                         const std::string& text) {
  return llm0::attention_map_json(*m.model, *m.tokenizer, model_name, text);
}

}  // namespace llm0::lesson
