// Naive attention in double. See ref_attention.h.
#include "ops/ref/ref_attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"

namespace llm0::ref {

uint64_t attention_forward(double* out, double* lse, const double* q, const double* k,
                           const double* v, const AttentionDims& d, const double* sinks) {
  const int B = d.B, Tq = d.Tq, Tk = d.Tk, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv;
  LLM0_CHECK(B > 0 && Tq > 0 && H > 0 && Hkv > 0 && D > 0 && Dv > 0 && H % Hkv == 0,
             "ref attention: bad dims B={} Tq={} H={} Hkv={} D={} Dv={}", B, Tq, H, Hkv, D, Dv);
  LLM0_CHECK(d.q_offset >= 0 && d.q_offset + Tq <= Tk, "ref attention: q_offset={} + Tq={} > "
             "Tk={}", d.q_offset, Tq, Tk);
  const int group = H / Hkv;
  uint64_t count = 0;
  std::vector<double> s(Tk);  // scores of one query row
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tq; ++t)
      for (int h = 0; h < H; ++h) {
        const int g = h / group, i = d.q_offset + t;
        const int first = first_visible_key(d, i), visible = i + 1;  // the one visibility rule
        const double* qr = q + (((long)b * Tq + t) * H + h) * D;
        double mx = sinks ? sinks[h] : -INFINITY;
        for (int j = first; j < visible; ++j) {
          const double* kr = k + (((long)b * Tk + j) * Hkv + g) * D;
          double dot = 0;
          for (int c = 0; c < D; ++c) dot += qr[c] * kr[c];
          s[j] = (double)d.scale * dot;
          mx = std::max(mx, s[j]);
          ++count;
        }
        double sum = sinks ? std::exp(sinks[h] - mx) : 0.0;
        for (int j = first; j < visible; ++j) sum += (s[j] = std::exp(s[j] - mx));
        double* o = out + (((long)b * Tq + t) * H + h) * Dv;
        for (int c = 0; c < Dv; ++c) {
          double acc = 0;
          for (int j = first; j < visible; ++j) acc += s[j] * v[(((long)b * Tk + j) * Hkv + g) * Dv + c];
          o[c] = acc / sum;
        }
        if (lse) lse[((long)b * H + h) * Tq + t] = mx + std::log(sum);
      }
  return count;
}

}  // namespace llm0::ref
