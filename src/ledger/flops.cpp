// FLOP ledger. See flops.h.
#include "ledger/flops.h"

namespace llm0 {

namespace {
// Matrix parameters of one attention layer: q, k, v, o — or MLA's q (or q_a, q_b), kv_a, kv_b, o.
double attention_matmul_parameters(const ModelConfig& c) {
  const double C = c.hidden_size, H = c.num_attention_heads;
  if (!c.mla.enabled()) {
    const double D = c.head_dim, Hkv = c.num_key_value_heads;
    return C * H * D * 2 + C * Hkv * D * 2;
  }
  const MlaConfig& m = c.mla;
  const double D = m.qk_head_dim(), r = m.kv_lora_rank, qr = m.q_lora_rank;
  const double q = qr > 0 ? qr * C + H * D * qr : H * D * C;
  return q + (r + m.qk_rope_head_dim) * C + H * (m.qk_nope_head_dim + m.v_head_dim) * r +
         C * H * m.v_head_dim;
}
}  // namespace

double matmul_parameters(const ModelConfig& c) {
  const double C = c.hidden_size, F = c.intermediate_size;
  const double attn = attention_matmul_parameters(c);
  const double mlp = (c.mlp() == MlpKind::SwiGLU ? 3.0 : 2.0) * C * F;    // gate, up, down
  return c.num_hidden_layers * (attn + mlp) + (double)c.vocab_size * C;  // + lm_head
}

double train_flops_per_token(const ModelConfig& c, int T) {
  // PaLM's attention term 6·L·H·d·T with d the mean of the q·k and v head dims.
  const double d = c.mla.enabled() ? 0.5 * (c.mla.qk_head_dim() + c.mla.v_head_dim) : c.head_dim;
  return 6.0 * matmul_parameters(c) + 6.0 * c.num_hidden_layers * c.num_attention_heads * d * T;
}

double forward_flops_per_token(const ModelConfig& c, int T) { return train_flops_per_token(c, T) / 3.0; }

}  // namespace llm0
