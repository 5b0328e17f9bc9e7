// Mixture-of-experts feed-forward. See moe.h; derivation in docs/derivations/moe.md.
#include "layers/moe.h"

#include <cmath>
#include <cstring>

#include "layers/moe_router.h"
#include "ops/matmul.h"

namespace llm0 {

MoeSizes::MoeSizes(const ModelConfig& c, size_t n)
    : N(n), E(c.moe.num_experts), K(c.moe.num_experts_per_tok), C(c.hidden_size),
      Fe(c.moe.moe_intermediate_size), Fs(c.moe.shared_expert_intermediate_size),
      G(c.moe.n_group) {}

namespace {

// Rows of a [rows, width] buffer starting at row r0.
template <class T>
T* rows_at(T* p, int r0, int width) { return p ? p + (size_t)r0 * width : nullptr; }

MlpSaved expert_rows(const MlpSaved& s, int r0, int F) {
  return {rows_at(s.gate, r0, F), rows_at(s.up, r0, F), rows_at(s.h, r0, F)};
}

MlpGradScratch expert_grad_rows(const MlpGradScratch& g, int r0, int F) {
  return {rows_at(g.dgate, r0, F), rows_at(g.dup, r0, F), rows_at(g.dh, r0, F)};
}

}  // namespace

void MoeLayer::forward(const float* x, int N, const MoeSaved& s, float* y,
                       uint64_t* expert_tokens, const LinearKernel& kernel) const {
  const MoeConfig& m = cfg->moe;
  const int C = cfg->hidden_size, E = m.num_experts, K = m.num_experts_per_tok;
  const int Fe = m.moe_intermediate_size, NK = N * K;
  linear_forward(s.logits, x, gate_w, nullptr, N, C, E, kernel);  // [N, E]
  std::fill(s.load, s.load + E, 0.0f), std::fill(s.mean_p, s.mean_p + E, 0.0f);
  int* count = s.offsets;  // [E + 1]: counts first, then prefix sums
  std::fill(count, count + E + 1, 0);
  for (int n = 0; n < N; ++n) {  // routing (serial: the work scratch is one token's)
    const size_t o = (size_t)n * E;
    moe_route(m, s.logits + o, bias, s.scores + o, s.ids + (size_t)n * K,
              s.weights + (size_t)n * K, s.work);
    moe_balance_probs(m, s.scores + o, s.work);
    for (int e = 0; e < E; ++e) s.mean_p[e] += s.work[e] / (float)N;
    for (int k = 0; k < K; ++k) ++count[s.ids[(size_t)n * K + k] + 1];
  }
  for (int e = 0; e < E; ++e) count[e + 1] += count[e];  // offsets: prefix sums
  // Counting sort of the (token, slot) rows by expert (load counts as the cursor); row_of and
  // token_of map both ways.
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      const int e = s.ids[(size_t)n * K + k];
      const int r = s.offsets[e] + (int)s.load[e]++;
      s.row_of[(size_t)n * K + k] = r, s.token_of[r] = n;
    }
  if (expert_tokens)
    for (int e = 0; e < E; ++e) expert_tokens[e] += (uint64_t)s.load[e];
#pragma omp parallel for schedule(static) if ((size_t)NK * C > 65536)
  for (int r = 0; r < NK; ++r)  // gather: xg [N·K, C]
    std::memcpy(s.xg + (size_t)r * C, x + (size_t)s.token_of[r] * C, sizeof(float) * C);
  for (int e = 0; e < E; ++e) {  // one grouped GEMM per expert (only experts that got rows)
    const int r0 = s.offsets[e], ne = s.offsets[e + 1] - r0;
    if (ne == 0) continue;
    MlpSaved rows = expert_rows(s.expert, r0, Fe);
    experts[(size_t)e].forward(s.xg + (size_t)r0 * C, ne, rows, s.out + (size_t)r0 * C, nullptr,
                               kernel);
  }
  const int Fs = m.shared_expert_intermediate_size;
  if (Fs > 0) shared.forward(x, N, s.shared, s.shared_out, nullptr, kernel);  // [N, C]
#pragma omp parallel for schedule(static) if ((size_t)N * C * K > 65536)
  for (int n = 0; n < N; ++n) {  // scatter: y[n] = Σ_k w_k out[row(n, k)] (+ gated shared)
    float* yn = y + (size_t)n * C;
    std::fill(yn, yn + C, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float w = s.weights[(size_t)n * K + k];
      const float* o = s.out + (size_t)s.row_of[(size_t)n * K + k] * C;
      for (int c = 0; c < C; ++c) yn[c] += w * o[c];
    }
    if (Fs == 0) continue;
    float g = 1.0f;
    if (shared_gate_w) {  // qwen2_moe: σ(x · shared_expert_gate)
      double z = 0;
      for (int c = 0; c < C; ++c) z += (double)x[(size_t)n * C + c] * shared_gate_w[c];
      g = s.shared_gate[n] = (float)(1.0 / (1.0 + std::exp(-z)));
    }
    const float* so = s.shared_out + (size_t)n * C;
    for (int c = 0; c < C; ++c) yn[c] += g * so[c];
  }
}

void MoeLayer::backward(float* dx, const float* dy, const float* x, int N, const MoeSaved& s,
                        const MoeGradScratch& g, float aux_scale) const {
  const MoeConfig& m = cfg->moe;
  const int C = cfg->hidden_size, E = m.num_experts, K = m.num_experts_per_tok;
  const int Fe = m.moe_intermediate_size, Fs = m.shared_expert_intermediate_size;
  // ∂L/∂w_k = <dy, out_k>; ∂L/∂out_k = w_k dy.
#pragma omp parallel for schedule(static) if ((size_t)N * C * K > 65536)
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      const size_t nk = (size_t)n * K + k, r = (size_t)s.row_of[nk];
      const float* dyn = dy + (size_t)n * C;
      const float* o = s.out + r * C;
      float* d = g.dout + r * C;
      const float w = s.weights[nk];
      double dot = 0;
      for (int c = 0; c < C; ++c) dot += (double)dyn[c] * o[c], d[c] = w * dyn[c];
      g.dweights[nk] = (float)dot;
    }
  for (int e = 0; e < E; ++e) {
    const int r0 = s.offsets[e], ne = s.offsets[e + 1] - r0;
    if (ne == 0) continue;
    experts[(size_t)e].backward(g.dxg + (size_t)r0 * C, g.dout + (size_t)r0 * C,
                                s.xg + (size_t)r0 * C, ne, expert_rows(s.expert, r0, Fe),
                                expert_grad_rows(g.expert, r0, Fe));
  }
#pragma omp parallel for schedule(static) if ((size_t)N * C * K > 65536)
  for (int n = 0; n < N; ++n) {  // dx[n] = Σ_k dxg[row(n, k)]
    float* d = dx + (size_t)n * C;
    std::fill(d, d + C, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float* src = g.dxg + (size_t)s.row_of[(size_t)n * K + k] * C;
      for (int c = 0; c < C; ++c) d[c] += src[c];
    }
  }
  // Router: dweights -> dscores (+ the balancing loss's dP) -> dlogits -> gate weight and dx.
  std::fill(g.dscores, g.dscores + (size_t)N * E, 0.0f);
  const float daux = aux_scale * (float)E / (float)N;  // ∂(aux_scale·E·Σ f_e P_e)/∂p_{n,e} = daux·f_e
  for (int n = 0; n < N; ++n) {
    const float* sc = s.scores + (size_t)n * E;
    float* ds = g.dscores + (size_t)n * E;
    moe_weights_backward(m, sc, s.ids + (size_t)n * K, g.dweights + (size_t)n * K, ds);
    if (daux != 0.0f) {
      float* dp = g.dlogits + (size_t)n * E;  // borrowed as dp [E] before dlogits is written
      for (int e = 0; e < E; ++e) dp[e] = daux * s.load[e] / (float)N;
      moe_balance_probs_backward(m, sc, dp, ds);
    }
    moe_scores_backward(m, sc, ds, g.dlogits + (size_t)n * E);
  }
  linear_backward(dx, dgate_w, nullptr, g.dlogits, x, gate_w, N, C, E, /*accumulate_dx=*/true);
  if (Fs == 0) return;
  // Shared expert: y += g_n · shared(x) (g_n = 1 ungated).
  std::memcpy(g.dshared, dy, sizeof(float) * (size_t)N * C);
  if (shared_gate_w) {
    for (int n = 0; n < N; ++n) {
      const float* dyn = dy + (size_t)n * C;
      const float* so = s.shared_out + (size_t)n * C;
      const float gn = s.shared_gate[n];
      double dg = 0;
      for (int c = 0; c < C; ++c) dg += (double)dyn[c] * so[c], g.dshared[(size_t)n * C + c] *= gn;
      const float dz = (float)(dg * gn * (1.0 - gn));  // ∂L/∂(x·w_sg)
      for (int c = 0; c < C; ++c)
        dshared_gate_w[c] += dz * x[(size_t)n * C + c], dx[(size_t)n * C + c] += dz * shared_gate_w[c];
    }
  }
  shared.backward(g.dpart, g.dshared, x, N, s.shared, g.shared);
  const size_t NC = (size_t)N * C;
  for (size_t i = 0; i < NC; ++i) dx[i] += g.dpart[i];
}

double MoeLayer::balance(const MoeSaved& s, int N) const {
  const int E = cfg->moe.num_experts;
  double sum = 0;
  for (int e = 0; e < E; ++e) sum += (double)s.load[e] / N * s.mean_p[e];
  return E * sum;
}

}  // namespace llm0
