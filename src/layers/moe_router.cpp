// Mixture-of-experts router. See moe_router.h.
#include "layers/moe_router.h"

#include <cmath>

namespace llm0 {

namespace {

// Index of the largest of v[0, n) that is not excluded (-inf); the first (lowest) wins ties.
int argmax_first(const float* v, int n) {
  int best = -1;
  for (int i = 0; i < n; ++i)
    if (v[i] != -INFINITY && (best < 0 || v[i] > v[best])) best = i;
  return best;
}

// Group score: the best choice score (group_limited_greedy) or the sum of the two best (noaux_tc).
float group_score(const MoeConfig& m, const float* c, int n) {
  float a = -INFINITY, b = -INFINITY;
  for (int i = 0; i < n; ++i) {
    if (c[i] > a) b = a, a = c[i];
    else if (c[i] > b) b = c[i];
  }
  return m.topk_method == MoeTopk::NoauxTc ? a + b : a;
}

}  // namespace

void moe_route(const MoeConfig& m, const float* logits, const float* bias, float* scores,
               int* ids, float* weights, float* work) {
  const int E = m.num_experts, K = m.num_experts_per_tok;
  if (m.scoring == MoeScoring::Softmax) {
    float mx = logits[0];
    for (int e = 1; e < E; ++e) mx = std::max(mx, logits[e]);
    double sum = 0;
    for (int e = 0; e < E; ++e) sum += scores[e] = std::exp(logits[e] - mx);
    const float inv = (float)(1.0 / sum);
    for (int e = 0; e < E; ++e) scores[e] *= inv;
  } else {
    for (int e = 0; e < E; ++e) scores[e] = 1.0f / (1.0f + std::exp(-logits[e]));
  }
  float* choice = work;      // [E] scores (+ bias) that decide, -inf once excluded or taken
  float* groups = work + E;  // [n_group]
  for (int e = 0; e < E; ++e) choice[e] = scores[e] + (bias ? bias[e] : 0.0f);
  if (m.grouped()) {
    const int G = m.n_group, per = E / G;
    for (int g = 0; g < G; ++g) groups[g] = group_score(m, choice + g * per, per);
    for (int k = 0; k < m.topk_group; ++k) groups[argmax_first(groups, G)] = -INFINITY;  // kept
    for (int g = 0; g < G; ++g)
      if (groups[g] != -INFINITY)  // not among the topk_group best: excluded
        for (int e = g * per; e < (g + 1) * per; ++e) choice[e] = -INFINITY;
  }
  double sum = 0;
  for (int k = 0; k < K; ++k) {
    const int e = argmax_first(choice, E);
    ids[k] = e, weights[k] = scores[e], sum += scores[e];
    choice[e] = -INFINITY;
  }
  const double scale = m.routed_scaling_factor / (m.norm_topk_prob ? sum : 1.0);
  for (int k = 0; k < K; ++k) weights[k] = (float)(weights[k] * scale);
}

void moe_weights_backward(const MoeConfig& m, const float* scores, const int* ids,
                          const float* dweights, float* dscores) {
  const int K = m.num_experts_per_tok;
  const double a = m.routed_scaling_factor;
  if (!m.norm_topk_prob) {  // w_k = a s_k
    for (int k = 0; k < K; ++k) dscores[ids[k]] += (float)(a * dweights[k]);
    return;
  }
  // w_k = a s_k / S, S = Σ_j s_j: ∂L/∂s_k = a (dw_k − Σ_j dw_j s_j / S) / S.
  double S = 0, dot = 0;
  for (int k = 0; k < K; ++k) S += scores[ids[k]], dot += (double)dweights[k] * scores[ids[k]];
  for (int k = 0; k < K; ++k) dscores[ids[k]] += (float)(a * (dweights[k] - dot / S) / S);
}

void moe_scores_backward(const MoeConfig& m, const float* scores, const float* dscores,
                         float* dlogits) {
  const int E = m.num_experts;
  if (m.scoring == MoeScoring::Sigmoid) {
    for (int e = 0; e < E; ++e) dlogits[e] = dscores[e] * scores[e] * (1.0f - scores[e]);
    return;
  }
  double dot = 0;
  for (int e = 0; e < E; ++e) dot += (double)dscores[e] * scores[e];
  for (int e = 0; e < E; ++e) dlogits[e] = scores[e] * (float)(dscores[e] - dot);
}

void moe_balance_probs(const MoeConfig& m, const float* scores, float* p) {
  const int E = m.num_experts;
  double S = 1.0;
  if (m.scoring == MoeScoring::Sigmoid) {
    S = 0;
    for (int e = 0; e < E; ++e) S += scores[e];
  }
  for (int e = 0; e < E; ++e) p[e] = (float)(scores[e] / S);
}

void moe_balance_probs_backward(const MoeConfig& m, const float* scores, const float* dp,
                                float* dscores) {
  const int E = m.num_experts;
  if (m.scoring == MoeScoring::Softmax) {
    for (int e = 0; e < E; ++e) dscores[e] += dp[e];
    return;
  }
  // p_e = s_e / S: ∂L/∂s_e = (dp_e − Σ_j dp_j p_j) / S.
  double S = 0, dot = 0;
  for (int e = 0; e < E; ++e) S += scores[e];
  for (int e = 0; e < E; ++e) dot += (double)dp[e] * scores[e] / S;
  for (int e = 0; e < E; ++e) dscores[e] += (float)((dp[e] - dot) / S);
}

}  // namespace llm0
