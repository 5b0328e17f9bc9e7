// Causal scaled dot-product attention with grouped KV heads (Vaswani et al., arXiv:1706.03762,
// eq. 1: softmax(Q Kᵀ / √d_k) V; GQA, Ainslie et al., arXiv:2305.13245). Query head h reads KV
// head h / (H / Hkv) (consecutive grouping, as HF repeat_kv). MHA: Hkv = H; MQA: Hkv = 1.
// Layouts (row-major, outermost first): q [B, Tq, H, D], k [B, Tk, Hkv, D], v [B, Tk, Hkv, Dv],
// out [B, Tq, H, Dv], lse [B, H, Tq]. Causal rule: query t sits at absolute position
// q_offset + t and sees keys 0..q_offset + t. Training calls it with q_offset = 0, Tk = Tq;
// cached inference with the cache's K/V (Tk = keys cached, q_offset = Tk - Tq).
// Backward (FlashAttention-2 style recompute from lse, arXiv:2307.08691 Alg. 2):
// docs/derivations/attention.md.
#pragma once
#include <cstdint>

namespace llm0 {

/// Shapes of one attention call (see file header).
struct AttentionDims {
  int B = 1, Tq = 1, Tk = 1, H = 1, Hkv = 1, D = 1, Dv = 1;
  int q_offset = 0;  // absolute position of query 0; must satisfy q_offset + Tq <= Tk
  float scale = 1;   // usually 1 / sqrt(D)
};

/// out = softmax(scale · q kᵀ + causal mask) v; lse [B, H, Tq] = log Σ_j exp(scale q·k_j) over
/// the visible keys (saved for backward; may be null). Returns the number of q·k scores that
/// enter a softmax (the causal pairs, B · H · Σ_t (q_offset + t + 1)). Throws llm0::Error on
/// inconsistent dims (H % Hkv != 0, q_offset + Tq > Tk).
uint64_t attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                           const AttentionDims& d);

/// Backward for training (requires q_offset + Tq == Tk): given dout [B, Tq, H, Dv] and the
/// forward's out and lse, writes (overwrites) dq [B, Tq, H, D], dk [B, Tk, Hkv, D],
/// dv [B, Tk, Hkv, Dv]. dk/dv sum over the query heads that share a KV head.
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q,
                        const float* k, const float* v, const float* out, const float* lse,
                        const AttentionDims& d);

}  // namespace llm0
