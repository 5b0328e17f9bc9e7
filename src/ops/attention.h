// Causal scaled dot-product attention with grouped KV heads (Vaswani et al., arXiv:1706.03762,
// eq. 1: softmax(Q Kᵀ / √d_k) V; GQA, Ainslie et al., arXiv:2305.13245). Query head h reads KV
// head h / (H / Hkv) (consecutive grouping, as HF repeat_kv). MHA: Hkv = H; MQA: Hkv = 1.
// Layouts (row-major, outermost first): q [B, Tq, H, D], k [B, Tk, Hkv, D], v [B, Tk, Hkv, Dv],
// out [B, Tq, H, Dv], lse [B, H, Tq]. Visibility rule (the one rule of forward, backward, the
// score count and the reference): query t sits at absolute position i = q_offset + t and sees
// key j iff j <= i and, with a sliding window W > 0, j > i - W (itself and W - 1 earlier keys;
// Mistral / HF `sliding_window_overlay`). Training calls it with q_offset = 0, Tk = Tq; cached
// inference with the cache's K/V (Tk = keys cached, q_offset = Tk - Tq). Only differences of
// positions matter, so key 0 may be any absolute position (a sliding layer's gathered window).
// Attention sinks (gpt-oss; Xiao et al., arXiv:2309.17453): one logit per query head joins every
// row's softmax and is dropped after it, p_j = e^{s_j} / (Σ_k e^{s_k} + e^{sink_h}); unscaled, no
// value. HF reference: transformers/models/gpt_oss/modeling_gpt_oss.py eager_attention_forward.
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
  int window = 0;    // sliding window W (keys j > i - W visible); 0 = every earlier key
  const float* sinks = nullptr;  // [H] sink logits (natural-log units); null = no sinks
  // Floats between consecutive key / value positions; 0 = packed (Hkv·D, Hkv·Dv). Lets MLA's
  // absorbed decode read keys [c_kv | k_pe] and values c_kv from the same latent rows.
  int k_stride = 0, v_stride = 0;
  // Mixed-precision training (--precision bf16): the per-head products (Q Kᵀ, P V and backward's
  // four) take BF16 operands and accumulate in float32 (ops/attention_gemm.h); the scaled scores,
  // softmax, lse and dS = P ⊙ (dP − D) stay float32. Decode (Tq = 1 with grouped heads) ignores it.
  bool bf16_products = false;
  long k_row() const { return k_stride ? k_stride : (long)Hkv * D; }
  long v_row() const { return v_stride ? v_stride : (long)Hkv * Dv; }
};

/// First key visible to the query at absolute position i (the window's left edge; 0 without a
/// window). The last visible key is i itself.
inline int first_visible_key(const AttentionDims& d, int i) {
  return d.window > 0 && i >= d.window ? i - d.window + 1 : 0;
}

/// out = softmax(scale · q kᵀ + mask [+ sink column]) v; lse [B, H, Tq] = log(Σ_j exp(scale q·k_j)
/// [+ exp(sink_h)]) over the visible keys (saved for backward; may be null). Returns the number
/// of q·k scores that enter a softmax (the visible pairs: B · H · Σ_t (q_offset + t + 1) without
/// a window, each row capped at W with one). Throws llm0::Error on inconsistent dims
/// (H % Hkv != 0, q_offset + Tq > Tk, window < 0).
uint64_t attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                           const AttentionDims& d);

/// Backward for training (requires q_offset + Tq == Tk): given dout [B, Tq, H, Dv] and the
/// forward's out and lse, writes (overwrites) dq [B, Tq, H, D], dk [B, Tk, Hkv, D],
/// dv [B, Tk, Hkv, Dv]. dk/dv sum over the query heads that share a KV head. With d.sinks,
/// dsinks [H] accumulates (+=) ∂L/∂sink_h = −Σ_{b,i} P_sink(b,h,i) · D_i
/// (docs/derivations/attention.md); dsinks may be null to skip it.
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q,
                        const float* k, const float* v, const float* out, const float* lse,
                        const AttentionDims& d, float* dsinks = nullptr);

}  // namespace llm0
