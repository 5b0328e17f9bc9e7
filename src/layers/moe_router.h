// Mixture-of-experts router, one token at a time: scores from the router logits, the k experts
// chosen, their mixing weights, and the backward of the weights to the logits.
// Qwen2/3-MoE (HF Qwen3MoeSparseMoeBlock): softmax over E, top k, ÷ their sum iff norm_topk_prob.
// DeepSeek-V2 (arXiv:2405.04434 §2.1.2, HF DeepseekV2MoE): softmax, greedy or group-limited top k
//   (groups ranked by their best score, the best topk_group kept), × routed_scaling_factor.
// DeepSeek-V3 (arXiv:2412.19437 eq. 13-16, §2.1.2 "auxiliary-loss-free"): sigmoid scores; the
//   choice uses s + e_score_correction_bias (noaux_tc: groups ranked by the sum of their two best
//   biased scores), the weights use the unbiased s of the chosen, ÷ their sum iff norm_topk_prob,
//   then × routed_scaling_factor.
// Tie rule: among equal (biased) scores the lower expert id (and the lower group id) wins, so
// routing is deterministic. torch.topk documents no order among ties (its CPU kernel usually
// returns the lower index too, but nothing guarantees it), so HF may differ on exact ties only.
// Excluded groups are left out of the choice entirely (DeepSeek's and llama.cpp's rule;
// transformers fills 0.0, which differs only when every kept biased score is negative).
// Layouts: logits, scores, bias [E]; ids, weights [K] (best first).
#pragma once
#include "config/moe_config.h"

namespace llm0 {

/// Floats of `work` that moe_route needs: E + n_group.
inline int moe_route_work(const MoeConfig& m) { return m.num_experts + m.n_group; }

/// Routes one token. logits [E] (x · gateᵀ); bias [E] (e_score_correction_bias, or null: none);
/// scores [E] out (softmax or sigmoid of the logits); ids [K] out, weights [K] out; work:
/// moe_route_work(m) floats. No allocation.
void moe_route(const MoeConfig& m, const float* logits, const float* bias, float* scores,
               int* ids, float* weights, float* work);

/// Backward of the mixing weights to the scores for one token: dscores [E] += ∂L/∂s from
/// dweights [K] = ∂L/∂w. Only the chosen experts' scores receive gradient; the bias none.
/// With norm_topk_prob and K = 1 the weight is the constant routed_scaling_factor, so the
/// gradient is exactly zero (the router never learns from the language-model loss alone).
void moe_weights_backward(const MoeConfig& m, const float* scores, const int* ids,
                          const float* dweights, float* dscores);

/// Backward of the scoring function for one token: dlogits [E] (overwritten) from dscores [E]
/// and scores [E]: softmax s_e (ds_e − Σ_j ds_j s_j), sigmoid ds_e s_e (1 − s_e).
void moe_scores_backward(const MoeConfig& m, const float* scores, const float* dscores,
                         float* dlogits);

/// The router's probabilities p [E] of one token for the balancing loss's P_e term: the softmax
/// scores themselves, or the sigmoid scores normalised to sum 1 (DeepSeek-V3 eq. 19).
void moe_balance_probs(const MoeConfig& m, const float* scores, float* p);

/// Backward of moe_balance_probs: dscores [E] += ∂L/∂s from dp [E].
void moe_balance_probs_backward(const MoeConfig& m, const float* scores, const float* dp,
                                float* dscores);

}  // namespace llm0
