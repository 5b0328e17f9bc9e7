// Training attention with BF16 products (AttentionDims::bf16_products, ops/attention_gemm.h):
// (1) each product layout attention uses against cblas_sgemm on the same BF16-rounded operands,
// within both float32 sums' error, 2·γ_{K+2}·(|α| Σ|ab| + |C0|) (Higham eq. 3.5, u = 2⁻²⁴);
// (2) forward (out, lse) and (3) backward (dq, dk, dv) against a double-precision computation on
// the same BF16-rounded q, k, v, dO, within bounds derived below from the two roundings the BF16
// path adds to a float32 one: the scores' float32 sums (ε) and the rounding of P and dS to BF16
// (u_b = 2⁻⁸ relative, as ops/bf16_gemm.h). Shapes: GQA / MQA / MHA, D ≠ Dv, T across the
// 64-row block, a sliding window with sinks, head_dim 32.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "ops/attention.h"
#include "ops/attention_gemm.h"
#include "test_util.h"

namespace llm0 {
namespace {

constexpr double kU = 0x1p-24, kUb = 0x1p-8;  // float32 unit roundoff; BF16 rounding (relative)
double gamma_n(double n) { return n * kU / (1 - n * kU); }

std::vector<float> rounded(std::vector<float> v) {
  for (float& x : v) x = bf16_to_float(float_to_bf16(x));
  return v;
}

// (1) C = α A Bᵀ (+ C0) in BF16 and in float32, operands already BF16 values (products exact).
TEST(OpsAttentionBf16, ProductsMatchSgemmOnRoundedOperands) {
  struct Layout { bool a_t, b_t, acc; float alpha; const char* what; };
  const Layout layouts[] = {
      {false, false, false, 0.35f, "S = scale·Q Kᵀ"},    {false, true, false, 1.0f, "O = P V"},
      {false, false, false, 1.0f, "dP = dO Vᵀ"},         {true, true, true, 1.0f, "dV += Pᵀ dO"},
      {false, true, false, 0.35f, "dQ = scale·dS K"},   {true, true, true, 1.0f, "dK += dSᵀ Q"}};
  std::mt19937 rng(3);
  for (const Layout& l : layouts)
    for (const auto [M, N, K] : {std::array{13, 45, 7}, std::array{64, 32, 130}, std::array{1, 5, 1}}) {
      SCOPED_TRACE(format("{} M={} N={} K={}", l.what, M, N, K));
      const auto a = rounded(test::rand_vec((size_t)M * K, rng, -2, 2));
      const auto b = rounded(test::rand_vec((size_t)N * K, rng, -2, 2));
      // A(m, k): row-major [M, K] or the transpose of [K, M]; B(n, k) likewise.
      const GemmOperand A = l.a_t ? GemmOperand{a.data(), 1, M} : GemmOperand{a.data(), K, 1};
      const GemmOperand B = l.b_t ? GemmOperand{b.data(), 1, N} : GemmOperand{b.data(), K, 1};
      const std::vector<float> c0 = test::rand_vec((size_t)M * N, rng);
      std::vector<float> c16 = c0, c32 = c0;
      attention_gemm(c16.data(), N, A, B, M, N, K, l.alpha, l.acc, true);
      attention_gemm(c32.data(), N, A, B, M, N, K, l.alpha, l.acc, false);
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          double mass = 0;
          for (int k = 0; k < K; ++k)
            mass += std::fabs((double)A.p[m * A.rs + k * A.ks] * B.p[n * B.rs + k * B.ks]);
          const double bound = 2 * gamma_n(K + 2) * (l.alpha * mass + (l.acc ? std::fabs(c0[(size_t)(m * N + n)]) : 0));
          ASSERT_NEAR(c16[(size_t)(m * N + n)], c32[(size_t)(m * N + n)], bound) << m << "," << n;
        }
    }
}

struct Case {
  int B, T, H, Hkv, D, Dv, window;
  bool sinks;
};
// One comment per row: what it exercises.
const Case kCases[] = {
    {2, 70, 4, 2, 16, 16, 0, false},  // GQA, T across the 64-row block
    {1, 67, 3, 1, 9, 5, 20, true},    // MQA, D != Dv, sliding window 20 with sinks
    {2, 33, 2, 2, 32, 32, 0, false},  // MHA at head_dim 32 (llm0-small)
};

// The exact (double) quantities of one (b, h) row i and the BF16 path's error bounds for them.
struct Row {
  int lo, hi;                  // visible keys [lo, hi)
  std::vector<double> P, mass;  // P_ij and scale · Σ_d |q_id k_jd| over the visible j
  double L, mx, range;         // log-sum-exp, the largest logit, largest − smallest
  double eta, kappa;           // |P̃ − P| ≤ η P; |õ − o| ≤ κ Σ_j P |v|
  double eps;                  // max_j |S̃_ij − s_ij|
};

struct Ref {
  AttentionDims d;
  std::vector<float> q, k, v, sinks;  // BF16 values
  const float* kv(const std::vector<float>& x, int b, int j, int g, int E) const {
    return x.data() + (((size_t)b * d.Tk + j) * d.Hkv + g) * E;
  }
  const float* qo(const std::vector<float>& x, int b, int i, int h, int E) const {
    return x.data() + (((size_t)b * d.Tq + i) * d.H + h) * E;
  }
  // Derivation: S̃ = fl(Σ_d q k)·scale, so |S̃ − s| ≤ γ_{D+1}·mass = ε (per key; ε the row's
  // max). Softmax is 2ε-Lipschitz in relative terms: softmax(S̃)/softmax(s) ∈ [e^{−2ε}, e^{2ε}].
  // Its float32 evaluation (P = e^{S − mx} / Σ, or e^{S − L} in backward): the subtraction
  // (u·range), exp (≤ 2 ulp = 4u), the sum (γ_n), 1/Σ and the product (u each), the rounding of
  // L (u(|L| + |mx|) twice, log's γ_n): ρ ≤ u(range + 2|L| + 2|mx| + 2) + γ_{n+8}. η = e^{2ε}(1+ρ) − 1.
  // O = Σ_j bf16(P̃) v in float32: κ = (1 + u_b)(1 + η)(1 + γ_n) − 1.
  Row row(int b, int h, int i) const {
    Row r;
    const int g = h / (d.H / d.Hkv);
    r.lo = first_visible_key(d, i), r.hi = i + 1;
    std::vector<double> s;
    double mx = d.sinks ? d.sinks[h] : -INFINITY;
    r.eps = 0;
    for (int j = r.lo; j < r.hi; ++j) {
      double dot = 0, m = 0;
      for (int c = 0; c < d.D; ++c) {
        const double p = (double)qo(q, b, i, h, d.D)[c] * kv(k, b, j, g, d.D)[c];
        dot += p, m += std::fabs(p);
      }
      s.push_back(d.scale * dot), r.mass.push_back(d.scale * m);
      mx = std::max(mx, s.back());
      r.eps = std::max(r.eps, gamma_n(d.D + 1) * d.scale * m);
    }
    double sum = d.sinks ? std::exp(d.sinks[h] - mx) : 0, lo_s = mx;
    for (double x : s) sum += std::exp(x - mx), lo_s = std::min(lo_s, x);
    r.L = mx + std::log(sum), r.mx = mx, r.range = mx - lo_s;
    for (double x : s) r.P.push_back(std::exp(x - r.L));
    const int n = r.hi - r.lo;
    const double rho = kU * (r.range + 2 * std::fabs(r.L) + 2 * std::fabs(mx) + 2) + gamma_n(n + 8);
    r.eta = std::exp(2 * r.eps) * (1 + rho) - 1;
    r.kappa = (1 + kUb) * (1 + r.eta) * (1 + gamma_n(n)) - 1;
    return r;
  }
  // The exact o_ie = Σ_j P_ij v_je of row r (query head h) and W_ie = Σ_j P_ij |v_je|.
  std::pair<double, double> out_and_weight(int b, int h, const Row& r, int e) const {
    double o = 0, w = 0;
    for (int j = r.lo; j < r.hi; ++j) {
      const double vj = kv(v, b, j, h / (d.H / d.Hkv), d.Dv)[e];
      o += r.P[(size_t)(j - r.lo)] * vj, w += r.P[(size_t)(j - r.lo)] * std::fabs(vj);
    }
    return {o, w};
  }
};

Ref make_ref(const Case& c, unsigned seed) {
  Ref r;
  AttentionDims& d = r.d;
  d.B = c.B, d.Tq = d.Tk = c.T, d.H = c.H, d.Hkv = c.Hkv, d.D = c.D, d.Dv = c.Dv;
  d.scale = 1.0f / std::sqrt((float)c.D), d.window = c.window, d.bf16_products = true;
  std::mt19937 rng(seed);
  r.q = rounded(test::rand_vec((size_t)c.B * c.T * c.H * c.D, rng, -1.5f, 1.5f));
  r.k = rounded(test::rand_vec((size_t)c.B * c.T * c.Hkv * c.D, rng, -1.5f, 1.5f));
  r.v = rounded(test::rand_vec((size_t)c.B * c.T * c.Hkv * c.Dv, rng));
  r.sinks = test::rand_vec((size_t)c.H, rng, -1, 1);
  d.sinks = c.sinks ? r.sinks.data() : nullptr;
  return r;
}

// f(case, its reference inputs) for every row of kCases, each with its own seed.
template <class F>
void for_each_case(unsigned seed, F f) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(format("B={} T={} H={} Hkv={} D={} Dv={} window={} sinks={}", c.B, c.T, c.H,
                        c.Hkv, c.D, c.Dv, c.window, c.sinks));
    f(c, make_ref(c, seed++));
  }
}

// (2) out and lse. lse: log-sum-exp is 1-Lipschitz in the max norm (ε), plus its float32
// evaluation: the sum of exps (γ_n, exp 4u, argument u·range) through log (absolute), the cast
// of log Σ and the addition of mx (u(|L| + |mx|) each).
TEST(OpsAttentionBf16, ForwardWithinTheDerivedBound) {
  for_each_case(40, [](const Case& c, const Ref& ref) {
    const AttentionDims& d = ref.d;
    std::vector<float> out((size_t)c.B * c.T * c.H * c.Dv), lse((size_t)c.B * c.H * c.T);
    std::vector<float> out32 = out;
    attention_forward(out.data(), lse.data(), ref.q.data(), ref.k.data(), ref.v.data(), d);
    AttentionDims d32 = d;
    d32.bf16_products = false;
    attention_forward(out32.data(), nullptr, ref.q.data(), ref.k.data(), ref.v.data(), d32);
    EXPECT_NE(out, out32) << "the BF16 path rounds P: some output must differ from float32's";
    for (int b = 0; b < c.B; ++b)
      for (int h = 0; h < c.H; ++h)
        for (int i = 0; i < c.T; ++i) {
          const Row r = ref.row(b, h, i);
          const int n = r.hi - r.lo;
          const double lb = r.eps + gamma_n(n + 5) + kU * (r.range + 2 * std::fabs(r.L) + 2 * std::fabs(r.mx));
          ASSERT_NEAR(lse[((size_t)b * c.H + h) * c.T + i], r.L, lb) << b << "," << h << "," << i;
          for (int e = 0; e < c.Dv; ++e) {
            const auto [o, w] = ref.out_and_weight(b, h, r, e);
            ASSERT_NEAR(ref.qo(out, b, i, h, c.Dv)[e], o, r.kappa * w)
                << "out[" << b << ", " << i << ", " << h << ", " << e << "]";
          }
        }
  });
}

// (3) dq, dk, dv from the BF16 forward's out and lse, against the exact gradients of the exact
// forward. Per visible (i, j), with g = dP_ij − D_i and t = scale·P_ij·g (exact):
//   dP̃ = fl(Σ_c dO v): |ΔdP| ≤ α = γ_Dv Σ_c |dO_ic v_jc|;
//   D̃ = Σ_c dO õ (double, cast): |ΔD| ≤ β = κ Σ_c |dO_ic| W_ic + u|D|  (W_ic = Σ_j P |v_jc|);
//   dS̃' = bf16(fl(fl(P̃ · fl(dP̃ − D̃)) · scale)): |dS̃' − t| ≤ σ = scale·P·((λ − 1)|g| + λ(α + β)),
//   λ = (1 + u_b)(1 + η)(1 + u)³;
// then dQ = Σ_j dS̃' k (float32, ≤ T terms), dK = Σ_{h in group, i} dS̃' q and dV = Σ bf16(P̃) dO
// (float32 accumulation across blocks and heads, ≤ group·T + 1 terms):
//   |ΔdQ| ≤ Σ σ|k| + γ_T Σ (|t| + σ)|k|,  |ΔdK| ≤ Σ σ|q| + γ_{gT+1} Σ (|t| + σ)|q|,
//   |ΔdV| ≤ Σ ((1 + u_b)(1 + η) − 1) P |dO| + γ_{gT+1} Σ (1 + u_b)(1 + η) P |dO|.
TEST(OpsAttentionBf16, BackwardWithinTheDerivedBound) {
  for_each_case(60, [](const Case& c, const Ref& ref) {
    const AttentionDims& d = ref.d;
    std::mt19937 rng(c.T * 7 + c.D);
    const std::vector<float> dout = rounded(test::rand_vec((size_t)c.B * c.T * c.H * c.Dv, rng));
    std::vector<float> out((size_t)c.B * c.T * c.H * c.Dv), lse((size_t)c.B * c.H * c.T);
    attention_forward(out.data(), lse.data(), ref.q.data(), ref.k.data(), ref.v.data(), d);
    std::vector<float> dq(ref.q.size(), NAN), dk(ref.k.size(), NAN), dv(ref.v.size(), NAN);
    attention_backward(dq.data(), dk.data(), dv.data(), dout.data(), ref.q.data(), ref.k.data(),
                       ref.v.data(), out.data(), lse.data(), d);
    std::vector<double> want_dq(dq.size()), err_dq(dq.size()), mass_dq(dq.size());
    std::vector<double> want_dk(dk.size()), err_dk(dk.size()), mass_dk(dk.size());
    std::vector<double> want_dv(dv.size()), err_dv(dv.size()), mass_dv(dv.size());
    const int group = c.H / c.Hkv;
    for (int b = 0; b < c.B; ++b)
      for (int h = 0; h < c.H; ++h)
        for (int i = 0; i < c.T; ++i) {
          const Row r = ref.row(b, h, i);
          const int g = h / group;
          const float* doi = ref.qo(dout, b, i, h, c.Dv);
          double D = 0, beta = 0;
          for (int e = 0; e < c.Dv; ++e) {
            const auto [o, w] = ref.out_and_weight(b, h, r, e);
            D += doi[e] * o, beta += r.kappa * std::fabs(doi[e]) * w;
          }
          beta += kU * std::fabs(D);
          const double lambda = (1 + kUb) * (1 + r.eta) * std::pow(1 + kU, 3);
          const size_t qi = (((size_t)b * c.T + i) * c.H + h);
          for (int j = r.lo; j < r.hi; ++j) {
            const double P = r.P[(size_t)(j - r.lo)];
            const float* vj = ref.kv(ref.v, b, j, g, c.Dv);
            double dP = 0, alpha = 0;
            for (int e = 0; e < c.Dv; ++e) dP += doi[e] * vj[e], alpha += std::fabs(doi[e] * vj[e]);
            alpha *= gamma_n(c.Dv);
            const double gij = dP - D, t = d.scale * P * gij;
            const double sigma = d.scale * P * ((lambda - 1) * std::fabs(gij) + lambda * (alpha + beta));
            const size_t kj = ((size_t)b * c.T + j) * c.Hkv + g;
            for (int e = 0; e < c.D; ++e) {
              const double kje = ref.k[kj * c.D + e], qie = ref.q[qi * c.D + e];
              want_dq[qi * c.D + e] += t * kje, err_dq[qi * c.D + e] += sigma * std::fabs(kje);
              mass_dq[qi * c.D + e] += (std::fabs(t) + sigma) * std::fabs(kje);
              want_dk[kj * c.D + e] += t * qie, err_dk[kj * c.D + e] += sigma * std::fabs(qie);
              mass_dk[kj * c.D + e] += (std::fabs(t) + sigma) * std::fabs(qie);
            }
            for (int e = 0; e < c.Dv; ++e) {
              want_dv[kj * c.Dv + e] += P * doi[e];
              err_dv[kj * c.Dv + e] += ((1 + kUb) * (1 + r.eta) - 1) * P * std::fabs(doi[e]);
              mass_dv[kj * c.Dv + e] += (1 + kUb) * (1 + r.eta) * P * std::fabs(doi[e]);
            }
          }
        }
    const double gk = gamma_n(group * c.T + 1);
    for (size_t x = 0; x < dq.size(); ++x)
      ASSERT_NEAR(dq[x], want_dq[x], err_dq[x] + gamma_n(c.T) * mass_dq[x]) << "dq flat " << x;
    for (size_t x = 0; x < dk.size(); ++x)
      ASSERT_NEAR(dk[x], want_dk[x], err_dk[x] + gk * mass_dk[x]) << "dk flat " << x;
    for (size_t x = 0; x < dv.size(); ++x)
      ASSERT_NEAR(dv[x], want_dv[x], err_dv[x] + gk * mass_dv[x]) << "dv flat " << x;
  });
}

}  // namespace
}  // namespace llm0
