// Decode attention over F32 / BF16 cached rows. See attention_rows.h.
#include "ops/attention_rows.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/simd.h"
#include "core/threads.h"
#include "ops/bf16_kernels.h"

namespace llm0 {

namespace {
// The widening kernel of the chosen set: q·k reads one short row per key, so the avx512bf16
// hi/lo split of q would double the instructions for no gain in bytes.
Bf16Kernel widening_kernel() {
  const Bf16Kernel k = bf16_kernel();
  return k == Bf16Kernel::Avx512Bf16 ? Bf16Kernel::Avx512 : k;
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
  const Bf16Kernel kern = widening_kernel();
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

uint64_t attention_decode_rows(float* out, float* lse, const float* q, const KvRowSet& k,
                               const KvRowSet& v, const AttentionDims& d) {
  LLM0_CHECK(d.B == 1 && d.Tq == 1, "decode attention over cached rows takes one query "
             "(B = 1, Tq = 1), got B={} Tq={}", d.B, d.Tq);
  LLM0_CHECK(d.H > 0 && d.Hkv > 0 && d.D > 0 && d.Dv > 0 && d.H % d.Hkv == 0,
             "attention: num_attention_heads={} not divisible by num_key_value_heads={}", d.H, d.Hkv);
  LLM0_CHECK(d.q_offset + 1 == d.Tk, "decode attention: q_offset={} must be Tk − 1 (Tk={})",
             d.q_offset, d.Tk);
  LLM0_CHECK(d.window >= 0, "attention: sliding window {} must be >= 0", d.window);
  const int j0 = first_visible_key(d, d.q_offset), n = d.Tk - j0, group = d.H / d.Hkv;
  const long work = (long)d.H * n * (d.D + d.Dv);
#pragma omp parallel for schedule(static) if (d.H > 1 && work > 65536)
  for (int h = 0; h < d.H; ++h) {
    thread_local std::vector<float> s;
    if (s.size() < (size_t)n) s.resize((size_t)n);
    const int g = h / group;
    const float L = attend_query_rows(out + (long)h * d.Dv, q + (long)h * d.D, k, (long)g * d.D, v,
                                      (long)g * d.Dv, j0, n, d.D, d.Dv, d.scale,
                                      d.sinks ? d.sinks + h : nullptr, s.data());
    if (lse) lse[h] = L;
  }
  return (uint64_t)d.H * (uint64_t)n;
}

}  // namespace llm0
