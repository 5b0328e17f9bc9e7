// Naive double-precision reference of one multi-head latent attention layer (DeepSeek-V2,
// arXiv:2405.04434 §2.1; HF DeepseekV2Attention), written from the equations with plain loops —
// no blocking, no BLAS, no shared code with layers/mla.cpp except the sizes struct (MlaConfig): the query
// (q_proj, or q_a_proj → RMSNorm → q_b_proj), the latent [c_kv | k_pe] = kv_a_proj_with_mqa(x),
// c = RMSNorm(c_kv) (eps 1e-6), per head [k_nope | v] = kv_b_proj(c), interleaved RoPE
// (θ_i = pos · theta^(-2i/dr) on pairs (2i, 2i+1)) on q_pe and the shared k_pe, causal softmax with
// scale (dn + dr)^-1/2, o_proj. One sequence; layouts row-major, outermost first.
#pragma once
#include <vector>

#include "config/mla_config.h"

namespace llm0::ref {

/// MLA parameters in double, Hugging Face names and shapes ([out, in]); unused ones empty.
struct MlaParams {
  std::vector<double> q_proj, q_a_proj, q_a_proj_bias, q_a_layernorm, q_b_proj;
  std::vector<double> kv_a_proj_with_mqa, kv_a_proj_with_mqa_bias, kv_a_layernorm, kv_b_proj;
  std::vector<double> o_proj, o_proj_bias;
};

/// y [T, C] of x [T, C] at positions pos0 .. pos0 + T − 1 (every token sees tokens 0..t of this
/// call), with H heads of sizes m and RoPE base rope_theta (C = hidden_size, H =
/// num_attention_heads). Throws llm0::Error when m has no kv_lora_rank.
std::vector<double> mla_forward(const MlaConfig& m, int C, int H, double rope_theta,
                                const MlaParams& p, const std::vector<double>& x, int T,
                                int pos0 = 0);

}  // namespace llm0::ref
