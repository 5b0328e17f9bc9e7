// Naive shared-KV attention in double. See ref_shared_kv.h. The projections and the causal
// softmax are the double references of ops/ref (ref_matmul.h, ref_attention.h), called with the
// one projected row as both K and V; only the rotary tail (with negative angles for the output)
// is written here.
#include "ops/ref/ref_shared_kv.h"

#include <cmath>

#include "core/check.h"
#include "ops/attention.h"
#include "ops/ref/ref_attention.h"
#include "ops/ref/ref_matmul.h"

namespace llm0::ref {

namespace {
// Rotates the last R of the D dims of each of the N·heads rows of v [N, heads, D] by the angle
// sign · (pos0 + n) · theta^(-2i/R) per interleaved pair i = (2i, 2i+1).
void rope_tail(double* v, int N, int heads, int D, int R, int pos0, double sign, double theta) {
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < heads; ++h) {
      double* r = v + ((long)n * heads + h) * D + (D - R);
      for (int i = 0; i < R / 2; ++i) {
        const double a = sign * (pos0 + n) * std::pow(theta, -2.0 * i / R);
        const double c = std::cos(a), s = std::sin(a), x0 = r[2 * i], x1 = r[2 * i + 1];
        r[2 * i] = x0 * c - x1 * s;
        r[2 * i + 1] = x1 * c + x0 * s;
      }
    }
}
}  // namespace

std::vector<double> shared_kv_forward(const SharedKvDims& d, const SharedKvParams& p,
                                      const std::vector<double>& x, int T, int pos0) {
  const int C = d.C, H = d.H, Hkv = d.Hkv, D = d.D, R = d.R;
  LLM0_CHECK(H > 0 && Hkv > 0 && H % Hkv == 0, "ref shared_kv: H={} not a multiple of Hkv={}", H, Hkv);
  LLM0_CHECK(R >= 0 && R % 2 == 0 && R <= D, "ref shared_kv: R={} must be even and <= D={}", R, D);
  LLM0_CHECK(p.q_proj.size() == (size_t)H * D * C && p.kv_proj.size() == (size_t)Hkv * D * C &&
                 p.o_proj.size() == (size_t)C * H * D && (p.sinks.empty() || p.sinks.size() == (size_t)H),
             "ref shared_kv: parameter sizes do not match C={} H={} Hkv={} D={}", C, H, Hkv, D);
  LLM0_CHECK(x.size() == (size_t)T * C, "ref shared_kv: x has {} numbers, want T·C = {}", x.size(),
             (size_t)T * C);
  std::vector<double> q((size_t)T * H * D), s((size_t)T * Hkv * D), o((size_t)T * H * D);
  std::vector<double> y((size_t)T * C);
  linear_forward(q.data(), x.data(), p.q_proj.data(), nullptr, T, C, H * D);     // [T, H, D]
  linear_forward(s.data(), x.data(), p.kv_proj.data(), nullptr, T, C, Hkv * D);  // [T, Hkv, D]
  rope_tail(q.data(), T, H, D, R, pos0, 1.0, d.rope_theta);
  rope_tail(s.data(), T, Hkv, D, R, pos0, 1.0, d.rope_theta);
  AttentionDims a;
  a.Tq = a.Tk = T, a.H = H, a.Hkv = Hkv, a.D = a.Dv = D, a.window = d.window;
  a.scale = (float)(1.0 / std::sqrt((double)D));
  attention_forward(o.data(), nullptr, q.data(), s.data(), s.data(), a,  // K = V = s
                    p.sinks.empty() ? nullptr : p.sinks.data());
  rope_tail(o.data(), T, H, D, R, pos0, -1.0, d.rope_theta);  // back by −i: relative positions only
  linear_forward(y.data(), o.data(), p.o_proj.data(), nullptr, T, H * D, C);
  return y;
}

}  // namespace llm0::ref
