// FLOP ledger. See flops.h.
#include "ledger/flops.h"

#include "ledger/param_count.h"

namespace llm0 {

double matmul_parameters(const ModelConfig& c) { return count_parameters(c).matmul_active; }

// PaLM's attention term uses d, the mean of the q·k and v head dims.
static double attention_head_dim(const ModelConfig& c) {
  return c.mla.enabled() ? 0.5 * (c.mla.qk_head_dim() + c.mla.v_head_dim) : c.head_dim;
}

double train_flops_per_token(const ModelConfig& c, int T) {
  const double d = attention_head_dim(c);
  return 6.0 * matmul_parameters(c) + 6.0 * c.num_hidden_layers * c.num_attention_heads * d * T;
}

double forward_flops_per_token(const ModelConfig& c, int T) { return train_flops_per_token(c, T) / 3.0; }

}  // namespace llm0

namespace llm0 {

double decode_flops_per_token(const ModelConfig& c, int S) {
  return 2.0 * matmul_parameters(c) +
         4.0 * c.num_hidden_layers * c.num_attention_heads * attention_head_dim(c) * S;
}

}  // namespace llm0
