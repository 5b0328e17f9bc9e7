// Naive double-precision reference of one shared-KV attention layer (layers/shared_kv_attention.h):
// one projected vector per KV head serves as both key and value, as DeepSeek-V4's compressed
// attention does (DeepSeek-V4 report §2.3.3: one 512-dim entry per compressed position, read as
// K and as V; half the cache of separate K and V). Positions enter through the last R dims
// (the "separate rotary part of the key", as MLA's qk_rope part, DeepSeek-V2 arXiv:2405.04434
// §2.1.3), interleaved pairs (2i, 2i+1), θ_i = pos · theta^(-2i/R):
//   s_j = rope_j(x_j · kv_projᵀ)               [Hkv, D]   the one cached row; K_j = V_j = s_j
//   q_i = rope_i(x_i · q_projᵀ)                [H, D]
//   p_ij = softmax_j(q_i,h · s_j,g / √D [, sink_h])   g = h / (H / Hkv); j ≤ i (and j > i − W)
//   o_i,h = rope_{−i}(Σ_j p_ij s_j,g)          the output's last R dims rotated back by −i, so
//                                              it depends on relative positions only
//   y_i = o_i · o_projᵀ                        [C]
// Written from these equations with plain loops; shares no code with the layer. One sequence;
// layouts row-major, outermost first; takes op dimensions (not ModelConfig).
#pragma once
#include <vector>

namespace llm0::ref {

/// Sizes of one shared-KV attention layer: C = hidden_size, H = num_attention_heads,
/// Hkv = num_key_value_heads, D = head_dim, R = rotary dims (even, ≤ D; the last R of each head),
/// window W (0: full causal attention), rope_theta.
struct SharedKvDims {
  int C = 1, H = 1, Hkv = 1, D = 2, R = 2;
  int window = 0;
  double rope_theta = 10000.0;
};

/// Parameters in double, Hugging Face names and shapes ([out, in]): q_proj [H·D, C],
/// kv_proj [Hkv·D, C], o_proj [C, H·D]; sinks [H] (empty: no sinks).
struct SharedKvParams {
  std::vector<double> q_proj, kv_proj, o_proj, sinks;
};

/// y [T, C] of x [T, C] at absolute positions pos0 .. pos0 + T − 1 (token t sees tokens 0..t of
/// this call, within the window). Throws llm0::Error on inconsistent sizes (H % Hkv, R odd or
/// > D, parameter sizes).
std::vector<double> shared_kv_forward(const SharedKvDims& d, const SharedKvParams& p,
                                      const std::vector<double>& x, int T, int pos0 = 0);

}  // namespace llm0::ref
