// Naive double-precision gated delta rule. See ref_gated_delta.h.
#include "ops/ref/ref_gated_delta.h"

#include <cmath>
#include <vector>

#include "core/check.h"

namespace llm0::ref {

void gated_delta_forward(double* o, double* state, const double* q, const double* k,
                         const double* v, const double* g, const double* beta,
                         const GatedDeltaDims& d) {
  LLM0_CHECK(d.B > 0 && d.T > 0 && d.nk > 0 && d.nv > 0 && d.dk > 0 && d.dv > 0 &&
                 d.nv % d.nk == 0,
             "reference gated delta rule: bad dims B={} T={} nk={} nv={} dk={} dv={}", d.B, d.T,
             d.nk, d.nv, d.dk, d.dv);
  const int r = d.nv / d.nk;
  std::vector<double> u(d.dv);
  for (int b = 0; b < d.B; ++b)
    for (int h = 0; h < d.nv; ++h) {
      double* S = state + ((size_t)b * d.nv + h) * d.dk * d.dv;
      for (int t = 0; t < d.T; ++t) {
        const size_t row = (size_t)b * d.T + t;
        const double* qt = q + (row * d.nk + h / r) * d.dk;
        const double* kt = k + (row * d.nk + h / r) * d.dk;
        const double* vt = v + (row * d.nv + h) * d.dv;
        const double a = std::exp(g[row * d.nv + h]), bt = beta[row * d.nv + h];
        for (int x = 0; x < d.dk * d.dv; ++x) S[x] *= a;
        for (int j = 0; j < d.dv; ++j) {
          double sk = 0;
          for (int i = 0; i < d.dk; ++i) sk += S[(size_t)i * d.dv + j] * kt[i];
          u[j] = bt * (vt[j] - sk);
        }
        for (int i = 0; i < d.dk; ++i)
          for (int j = 0; j < d.dv; ++j) S[(size_t)i * d.dv + j] += kt[i] * u[j];
        double* ot = o + (row * d.nv + h) * d.dv;
        for (int j = 0; j < d.dv; ++j) {
          double s = 0;
          for (int i = 0; i < d.dk; ++i) s += S[(size_t)i * d.dv + j] * qt[i];
          ot[j] = s;
        }
      }
    }
}

}  // namespace llm0::ref
