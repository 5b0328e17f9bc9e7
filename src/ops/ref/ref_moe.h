// Naive double-precision reference of a mixture-of-experts feed-forward (HF Qwen2MoeSparseMoeBlock,
// Qwen3MoeSparseMoeBlock, DeepseekV2MoE, DeepseekV3MoE), written from the routing rules with
// sorting instead of layers/moe_router.cpp's scans: per token, scores (softmax or sigmoid), the
// choice scores s + e_score_correction_bias, groups ranked by their best score
// (group_limited_greedy) or the sum of their two best (noaux_tc) and stably sorted so the lower
// id wins ties, the top k experts of the kept groups, weights s_k (÷ Σ iff norm_topk_prob)
// × routed_scaling_factor; y = Σ_k w_k expert_k(x) + [σ(x·w_sg)] shared(x), each expert
// down(silu(gate x) ⊙ up x), token by token with no grouping. Layouts row-major.
#pragma once
#include <vector>

#include "config/moe_config.h"

namespace llm0::ref {

/// The choice for one token: ids [K] best first, weights [K].
struct MoeRoute {
  std::vector<int> ids;
  std::vector<double> weights;
};

/// Routes logits [E] (bias [E] or empty: none).
MoeRoute moe_route(const MoeConfig& m, const std::vector<double>& logits,
                   const std::vector<double>& bias);

/// One SwiGLU MLP's weights: gate_proj, up_proj [F, C], down_proj [C, F].
struct SwigluParams {
  std::vector<double> gate_proj, up_proj, down_proj;
};

/// MoE parameters, HF names and shapes: gate [E, C], e_score_correction_bias [E] (or empty),
/// experts [E], shared (empty vectors: none), shared_expert_gate [C] (or empty: ungated).
struct MoeParams {
  std::vector<double> gate, e_score_correction_bias, shared_expert_gate;
  std::vector<SwigluParams> experts;
  SwigluParams shared;
};

/// y [N, C] of x [N, C].
std::vector<double> moe_forward(const MoeConfig& m, int C, const MoeParams& p,
                                const std::vector<double>& x, int N);

/// E · Σ_e f_e P_e for x [N, C] (f_e: tokens routed to e / N, so Σ_e f_e = K;
/// P_e: mean softmax probability, or mean normalised sigmoid score).
double moe_balance(const MoeConfig& m, int C, const MoeParams& p, const std::vector<double>& x, int N);

}  // namespace llm0::ref
