// The attention map: what every attention head of a model attends to on a sentence (`llm0 lesson
// attention-map` and the explorer on a loaded model, `llm0 train --attention-text` on the model
// being trained). One training-path forward (Model::forward, B = 1) saves each attention layer's
// q and k (after QK-norm and RoPE); the weights are then read out of the engine's own attention op
// by attending over one-hot value rows (out row t = (w_tj)_j, as `lesson attention` does), with
// the layer's causal mask, sliding window and sink logits — softmax(q kᵀ/√d_k) (arXiv:1706.03762
// eq. 1).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// Longest sentence (tokens) the map is computed for: the JSON holds layers × heads × T² weights.
constexpr int kAttentionMapMaxTokens = 64;

/// The map as JSON (docs/explore-api.md "attention-map"): layers[i].heads[h][t][j], 0 above the
/// diagonal and outside a window (MLA layers from their expanded per-head q and k); linear
/// (Gated DeltaNet) layers listed with no heads; each row t sums to 1 up to float rounding.
/// `tokenizer` encodes `text` (with its special tokens), `model_name` names the model. Runs one
/// Model::forward (B = 1, no dropout), which replaces the activations `model` saved: run it on a
/// model between training steps through a lane (Model::LaneOf) to leave the training forward's
/// buffers alone. Throws llm0::Error naming the limit when the text encodes to no token, to more
/// than kAttentionMapMaxTokens or more than max_position_embeddings tokens.
nlohmann::json attention_map_json(Model& model, const Tokenizer& tokenizer,
                                  const std::string& model_name, const std::string& text);

}  // namespace llm0
