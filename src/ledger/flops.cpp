// FLOP ledger. See flops.h.
#include "ledger/flops.h"

namespace llm0 {

double matmul_parameters(const ModelConfig& c) {
  const double C = c.hidden_size, F = c.intermediate_size, D = c.head_dim;
  const double H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const double attn = C * H * D * 2 + C * Hkv * D * 2;                    // q, o and k, v
  const double mlp = (c.mlp() == MlpKind::SwiGLU ? 3.0 : 2.0) * C * F;    // gate, up, down
  return c.num_hidden_layers * (attn + mlp) + (double)c.vocab_size * C;  // + lm_head
}

double train_flops_per_token(const ModelConfig& c, int T) {
  return 6.0 * matmul_parameters(c) +
         6.0 * c.num_hidden_layers * c.num_attention_heads * (double)c.head_dim * T;
}

double forward_flops_per_token(const ModelConfig& c, int T) { return train_flops_per_token(c, T) / 3.0; }

}  // namespace llm0
