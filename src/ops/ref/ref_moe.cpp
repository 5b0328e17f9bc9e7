// Naive double-precision mixture-of-experts reference. See ref_moe.h.
#include "ops/ref/ref_moe.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace llm0::ref {

namespace {

std::vector<double> scores_of(const MoeConfig& m, const std::vector<double>& z) {
  std::vector<double> s(z.size());
  if (m.scoring == MoeScoring::Sigmoid) {
    for (size_t e = 0; e < z.size(); ++e) s[e] = 1.0 / (1.0 + std::exp(-z[e]));
    return s;
  }
  const double mx = *std::max_element(z.begin(), z.end());
  double sum = 0;
  for (size_t e = 0; e < z.size(); ++e) sum += s[e] = std::exp(z[e] - mx);
  for (double& v : s) v /= sum;
  return s;
}

// Indices of v sorted by decreasing value; stable, so equal values keep the lower index first.
std::vector<int> order_desc(const std::vector<double>& v) {
  std::vector<int> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return v[(size_t)a] > v[(size_t)b]; });
  return idx;
}

std::vector<double> swiglu(const SwigluParams& p, int C, const double* x) {
  const size_t F = p.gate_proj.size() / (size_t)C;
  std::vector<double> y((size_t)C, 0.0);
  for (size_t f = 0; f < F; ++f) {
    double g = 0, u = 0;
    for (int c = 0; c < C; ++c) g += p.gate_proj[f * C + c] * x[c], u += p.up_proj[f * C + c] * x[c];
    const double h = g / (1.0 + std::exp(-g)) * u;
    for (int c = 0; c < C; ++c) y[(size_t)c] += p.down_proj[(size_t)c * F + f] * h;
  }
  return y;
}

std::vector<double> logits_of(const MoeConfig& m, int C, const MoeParams& p, const double* x) {
  std::vector<double> z((size_t)m.num_experts, 0.0);
  for (int e = 0; e < m.num_experts; ++e)
    for (int c = 0; c < C; ++c) z[(size_t)e] += p.gate[(size_t)e * C + c] * x[c];
  return z;
}

}  // namespace

MoeRoute moe_route(const MoeConfig& m, const std::vector<double>& logits,
                   const std::vector<double>& bias) {
  const int E = m.num_experts, K = m.num_experts_per_tok;
  const std::vector<double> s = scores_of(m, logits);
  std::vector<double> choice = s;
  if (!bias.empty())
    for (int e = 0; e < E; ++e) choice[(size_t)e] += bias[(size_t)e];
  std::vector<bool> allowed((size_t)E, true);
  if (m.topk_method != MoeTopk::Greedy && m.n_group > 1) {
    const int G = m.n_group, per = E / G;
    std::vector<double> group((size_t)G);
    for (int g = 0; g < G; ++g) {
      std::vector<double> members(choice.begin() + g * per, choice.begin() + (g + 1) * per);
      std::sort(members.rbegin(), members.rend());
      group[(size_t)g] = m.topk_method == MoeTopk::NoauxTc ? members[0] + members[1] : members[0];
    }
    const std::vector<int> rank = order_desc(group);
    std::vector<bool> kept((size_t)G, false);
    for (int i = 0; i < m.topk_group; ++i) kept[(size_t)rank[(size_t)i]] = true;
    for (int e = 0; e < E; ++e) allowed[(size_t)e] = kept[(size_t)(e / per)];
  }
  MoeRoute r;
  for (int e : order_desc(choice))
    if (allowed[(size_t)e] && (int)r.ids.size() < K) r.ids.push_back(e);
  double sum = 0;
  for (int e : r.ids) sum += s[(size_t)e];
  for (int e : r.ids)
    r.weights.push_back(s[(size_t)e] / (m.norm_topk_prob ? sum : 1.0) * m.routed_scaling_factor);
  return r;
}

std::vector<double> moe_forward(const MoeConfig& m, int C, const MoeParams& p,
                                const std::vector<double>& x, int N) {
  std::vector<double> y((size_t)N * C, 0.0);
  for (int n = 0; n < N; ++n) {
    const double* xn = x.data() + (size_t)n * C;
    const MoeRoute r = moe_route(m, logits_of(m, C, p, xn), p.e_score_correction_bias);
    for (size_t k = 0; k < r.ids.size(); ++k) {
      const std::vector<double> o = swiglu(p.experts[(size_t)r.ids[k]], C, xn);
      for (int c = 0; c < C; ++c) y[(size_t)n * C + c] += r.weights[k] * o[(size_t)c];
    }
    if (p.shared.gate_proj.empty()) continue;
    double g = 1.0;
    if (!p.shared_expert_gate.empty()) {
      double z = 0;
      for (int c = 0; c < C; ++c) z += p.shared_expert_gate[(size_t)c] * xn[c];
      g = 1.0 / (1.0 + std::exp(-z));
    }
    const std::vector<double> o = swiglu(p.shared, C, xn);
    for (int c = 0; c < C; ++c) y[(size_t)n * C + c] += g * o[(size_t)c];
  }
  return y;
}

double moe_balance(const MoeConfig& m, int C, const MoeParams& p, const std::vector<double>& x,
                   int N) {
  const int E = m.num_experts;
  std::vector<double> f((size_t)E, 0.0), P((size_t)E, 0.0);
  for (int n = 0; n < N; ++n) {
    const std::vector<double> z = logits_of(m, C, p, x.data() + (size_t)n * C);
    for (int e : moe_route(m, z, p.e_score_correction_bias).ids) f[(size_t)e] += 1.0 / N;
    const std::vector<double> s = scores_of(m, z);
    const double S = m.scoring == MoeScoring::Sigmoid ? std::accumulate(s.begin(), s.end(), 0.0) : 1.0;
    for (int e = 0; e < E; ++e) P[(size_t)e] += s[(size_t)e] / S / N;
  }
  double sum = 0;
  for (int e = 0; e < E; ++e) sum += f[(size_t)e] * P[(size_t)e];
  return E * sum;
}

}  // namespace llm0::ref
