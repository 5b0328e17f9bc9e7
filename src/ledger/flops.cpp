// FLOP ledger. See flops.h.
#include "ledger/flops.h"

#include "layers/mixer_factory.h"
#include "ledger/param_count.h"

namespace llm0 {

double matmul_parameters(const ModelConfig& c) { return count_parameters(c).matmul_active; }

// PaLM's attention term uses d, the mean of the q·k and v head dims.
static double attention_head_dim(const ModelConfig& c) {
  return c.mla.enabled() ? 0.5 * (c.mla.qk_head_dim() + c.mla.v_head_dim) : c.head_dim;
}

// Layers whose attention work grows with the context: those caching rows per token (all but
// Gated DeltaNet's fixed state; layers/mixer.h CacheSpec).
static int attention_layers(const ModelConfig& c) {
  int n = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) n += !make_mixer(c, il)->cache_spec().fixed_state();
  return n;
}

// Forward FLOPs per token of the linear layers' delta rule, whatever the context: per value head
// 4 dk·dv multiply-adds (decay S, Sᵀk, S += k uᵀ, Sᵀq; arXiv:2412.06464's recurrent form).
static double delta_rule_flops(const ModelConfig& c) {
  const GatedDeltaNetConfig& g = c.linear;
  const double per_layer = 8.0 * g.linear_num_value_heads * g.linear_key_head_dim * g.linear_value_head_dim;
  return per_layer * (c.num_hidden_layers - attention_layers(c));
}

double train_flops_per_token(const ModelConfig& c, int T) {
  const double d = attention_head_dim(c);
  return 6.0 * matmul_parameters(c) + 6.0 * attention_layers(c) * c.num_attention_heads * d * T +
         3.0 * delta_rule_flops(c);
}

double forward_flops_per_token(const ModelConfig& c, int T) { return train_flops_per_token(c, T) / 3.0; }

}  // namespace llm0

namespace llm0 {

double decode_flops_per_token(const ModelConfig& c, int S) {
  return 2.0 * matmul_parameters(c) +
         4.0 * attention_layers(c) * c.num_attention_heads * attention_head_dim(c) * S +
         delta_rule_flops(c);
}

}  // namespace llm0
