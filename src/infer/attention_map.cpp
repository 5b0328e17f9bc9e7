// Per-layer, per-head attention weights of a model on a sentence (attention_map.h).
#include "infer/attention_map.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "infer/token_pieces.h"
#include "ops/attention.h"

namespace llm0 {

using nlohmann::json;

namespace {

// Weights [H][T][T] of one attention layer: q [T, H, D], k [T, Hkv, D] from the saved forward
// (MLA: the expanded per-head q and k, Hkv = H, D = qk_nope_head_dim + qk_rope_head_dim), values
// one-hot [T, Hkv, T] so the op's output row (t, h) is that head's weights.
json layer_weights(const Model& model, int il, const float* q, const float* k, int Hkv, int D, int T) {
  const ModelConfig& c = model.config();
  const int H = c.num_attention_heads;
  std::vector<float> onehot((size_t)T * Hkv * T, 0.0f);  // [T, Hkv, T]
  for (int j = 0; j < T; ++j)
    for (int g = 0; g < Hkv; ++g) onehot[((size_t)j * Hkv + g) * T + j] = 1.0f;
  AttentionDims d;
  d.B = 1, d.Tq = T, d.Tk = T, d.q_offset = 0, d.H = H, d.Hkv = Hkv, d.D = D, d.Dv = T;
  d.scale = 1.0f / std::sqrt((float)D);  // as AttentionLayer::dims and MLA's (dn + dr)^-1/2
  d.window = c.layers.empty() ? 0 : c.layers[(size_t)il].sliding_window;
  const std::string sinks = format("model.layers.{}.self_attn.sinks", il);
  d.sinks = model.params().has(sinks) ? model.params().value(sinks) : nullptr;
  std::vector<float> out((size_t)T * H * T), lse((size_t)H * T);  // [T, H, T], [H, T]
  attention_forward(out.data(), lse.data(), q, k, onehot.data(), d);
  json heads = json::array();
  for (int h = 0; h < H; ++h) {
    json rows = json::array();
    for (int t = 0; t < T; ++t) {
      const float* row = out.data() + ((size_t)t * H + h) * T;
      rows.push_back(std::vector<float>(row, row + T));
    }
    heads.push_back(std::move(rows));
  }
  return heads;
}

}  // namespace

json attention_map_json(Model& model, const Tokenizer& tokenizer, const std::string& model_name,
                        const std::string& text) {
  const ModelConfig& c = model.config();
  const std::vector<int> ids = tokenizer.encode_with_special_tokens(text);
  const int T = (int)ids.size();
  LLM0_CHECK(T >= 1, "the text encodes to no token: give a sentence");
  const int limit = std::min(kAttentionMapMaxTokens, c.max_position_embeddings);
  LLM0_CHECK(T <= limit, "the text is {} tokens; the attention map takes at most {} (the model's "
             "context is {})", T, limit, c.max_position_embeddings);
  for (int id : ids)
    LLM0_CHECK(id >= 0 && id < c.vocab_size, "token id {} is outside the model's vocabulary of {}",
               id, c.vocab_size);
  const std::vector<int> no_targets((size_t)T, -1);
  model.forward(ids.data(), no_targets.data(), 1, T);
  json layers = json::array();
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const SavedAttention s = model.saved_attention(il);
    json heads = json::array();  // linear attention has no weights to show
    if (s.q) heads = layer_weights(model, il, s.q, s.k, s.Hkv, s.D, T);
    layers.push_back({{"layer", il}, {"kind", model.mixer(il).kind_name()},
                      {"sliding_window", c.layers.empty() ? 0 : c.layers[(size_t)il].sliding_window},
                      {"heads", std::move(heads)}});
  }
  return {{"lesson", "attention-map"}, {"model", model_name}, {"text", text},
          {"tokens", token_pieces_json(tokenizer, ids)},
          {"num_hidden_layers", c.num_hidden_layers},
          {"num_attention_heads", c.num_attention_heads}, {"layers", std::move(layers)}};
}

}  // namespace llm0
