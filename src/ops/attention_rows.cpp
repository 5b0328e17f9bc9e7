// One query against F32 / BF16 cached rows. See attention_rows.h.
#include "ops/attention_rows.h"

#include <algorithm>
#include <cmath>

#include "core/simd.h"
#include "ops/bf16_kernels.h"

namespace llm0 {

namespace {
// The widening kernel of the chosen set: q·k reads one short row per key, so the avx512bf16
// hi/lo split of q would double the instructions for no gain in bytes.
Isa widening_kernel() {
  const Isa k = bf16_kernel();
  return k == Isa::Avx512Bf16 ? Isa::Avx512 : k;
}

// The float32 rows: the same loops as the scalar BF16 kernels, on float32.
void dot_rows_f32(float* s, const float* const* rows, long off, int n, const float* q, int D) {
  for (int j = 0; j < n; ++j) {
    simd::f32x16 acc = {};
    const float* r = rows[j] + off;
    int i = 0;
    for (; i + simd::kWidth <= D; i += simd::kWidth) acc += simd::load(r + i) * simd::load(q + i);
    float t = simd::sum(acc);
    for (; i < D; ++i) t += r[i] * q[i];
    s[j] = t;
  }
}

void weighted_rows_f32(float* out, const float* p, const float* const* rows, long off, int n, int Dv) {
  std::fill(out, out + Dv, 0.0f);
  for (int j = 0; j < n; ++j) {
    const float* r = rows[j] + off;
    for (int c = 0; c < Dv; ++c) out[c] += p[j] * r[c];
  }
}
}  // namespace

float attend_query_rows(float* out, const float* q, const KvRowSet& k, long k_off, const KvRowSet& v,
                        long v_off, int j0, int n, int D, int Dv, float scale, const float* sink,
                        float* s) {
  const Isa kern = widening_kernel();
  if (k.bf16)
    bf16_dot_rows(s, k.bf16 + j0, k_off, n, q, D, kern);
  else
    dot_rows_f32(s, k.f32 + j0, k_off, n, q, D);
  for (int j = 0; j < n; ++j) s[j] *= scale;
  float mx = simd::max_of(s, n);
  if (sink) mx = std::max(mx, *sink);
  double sum = simd::sum_exp(s, n, mx, s);  // s[j] ← e^{s[j] − mx}
  if (sink) sum += std::exp((double)*sink - mx);
  const float inv = (float)(1.0 / sum);
  for (int j = 0; j < n; ++j) s[j] *= inv;  // p_j
  if (v.bf16)
    bf16_weighted_rows(out, s, v.bf16 + j0, v_off, n, Dv, kern);
  else
    weighted_rows_f32(out, s, v.f32 + j0, v_off, n, Dv);
  return mx + (float)std::log(sum);
}

}  // namespace llm0
