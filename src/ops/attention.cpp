// Causal grouped-query attention on OpenBLAS, processed in blocks of query rows so that each block
// only multiplies against the keys it can see. See attention.h and docs/derivations/attention.md.
#include "ops/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/simd.h"

namespace llm0 {

namespace {

constexpr int kRowBlock = 64;  // query rows per block: bounds the scratch to [64, Tk]

// Per-thread scratch, grown once and reused (no allocation per call after warm-up).
float* scratch(std::vector<float>& buf, size_t n) {
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

void check_dims(const AttentionDims& d) {
  LLM0_CHECK(d.B > 0 && d.Tq > 0 && d.H > 0 && d.Hkv > 0 && d.D > 0 && d.Dv > 0,
             "attention: non-positive dims B={} Tq={} H={} Hkv={} D={} Dv={}", d.B, d.Tq, d.H,
             d.Hkv, d.D, d.Dv);
  LLM0_CHECK(d.H % d.Hkv == 0, "attention: num_attention_heads={} not divisible by "
             "num_key_value_heads={}", d.H, d.Hkv);
  LLM0_CHECK(d.q_offset >= 0 && d.q_offset + d.Tq <= d.Tk,
             "attention: q_offset={} + Tq={} exceeds Tk={}", d.q_offset, d.Tq, d.Tk);
}

// S[rows, nk] = scale · q_block · kᵀ  (q rows strided by H·D, k rows by Hkv·D).
void scores(float* S, const float* qb, const float* kb, int rows, int nk, const AttentionDims& d) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, nk, d.D, d.scale, qb, d.H * d.D, kb,
              d.Hkv * d.D, 0.0f, S, nk);
}

// For j < n: p[j] ← P_ij = e^{s_ij - L_i} (p holds the scores s, L the saved log-sum-exp) and
// dp[j] ← dS_ij = P_ij (dP_ij - D_i).
void softmax_grad(float* p, float* dp, int n, float L, float Di) {
  constexpr int W = simd::kWidth;
  int j = 0;
  for (; j + W <= n; j += W) {
    const simd::f32x16 e = simd::exp(simd::load(p + j) - L);
    simd::store(p + j, e);
    simd::store(dp + j, e * (simd::load(dp + j) - Di));
  }
  for (; j < n; ++j) {
    p[j] = std::exp(p[j] - L);
    dp[j] = p[j] * (dp[j] - Di);
  }
}

}  // namespace

uint64_t attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                           const AttentionDims& d) {
  check_dims(d);
  const int B = d.B, Tq = d.Tq, Tk = d.Tk, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv;
  const int group = H / Hkv;
  // Threads only when there is enough work: a parallel region costs more than a decode step's
  // attention for small models.
  const long work = (long)B * H * Tq * (d.q_offset + Tq) * (D + Dv);
#pragma omp parallel for schedule(dynamic) if (B * H > 1 && work > 65536)
  for (int bh = 0; bh < B * H; ++bh) {
    thread_local std::vector<float> buf;
    const int b = bh / H, h = bh % H, g = h / group;
    const float* kb = k + ((long)b * Tk * Hkv + g) * D;    // k[b, 0, g, :]
    const float* vb = v + ((long)b * Tk * Hkv + g) * Dv;   // v[b, 0, g, :]
    for (int r0 = 0; r0 < Tq; r0 += kRowBlock) {
      const int rows = std::min(kRowBlock, Tq - r0);
      const int nk = d.q_offset + r0 + rows;  // keys visible to the block's last row
      float* S = scratch(buf, (size_t)rows * nk);  // [rows, nk]
      const float* qb = q + (((long)b * Tq + r0) * H + h) * D;
      scores(S, qb, kb, rows, nk, d);
      for (int i = 0; i < rows; ++i) {
        float* s = S + (long)i * nk;
        const int visible = d.q_offset + r0 + i + 1;
        const float mx = simd::max_of(s, visible);
        const double sum = simd::sum_exp(s, visible, mx, s);  // s[j] ← e^{s[j] - mx}
        const float inv = (float)(1.0 / sum);
        for (int j = 0; j < visible; ++j) s[j] *= inv;
        for (int j = visible; j < nk; ++j) s[j] = 0.0f;  // masked: weight exactly 0
        if (lse) lse[((long)b * H + h) * Tq + r0 + i] = mx + (float)std::log(sum);
      }
      // out_block[rows, Dv] = P[rows, nk] · v[nk, Dv]
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, Dv, nk, 1.0f, S, nk, vb,
                  Hkv * Dv, 0.0f, out + (((long)b * Tq + r0) * H + h) * Dv, H * Dv);
    }
  }
  uint64_t pairs = 0;
  for (int t = 0; t < Tq; ++t) pairs += (uint64_t)(d.q_offset + t + 1);
  return pairs * (uint64_t)B * (uint64_t)H;
}

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q,
                        const float* k, const float* v, const float* out, const float* lse,
                        const AttentionDims& d) {
  check_dims(d);
  LLM0_CHECK(d.q_offset + d.Tq == d.Tk, "attention_backward needs q_offset + Tq == Tk");
  const int B = d.B, T = d.Tq, Tk = d.Tk, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv;
  const int group = H / Hkv;
  // One task per (b, KV head g): the query heads of a group all add into the same dk/dv rows.
#pragma omp parallel for schedule(dynamic) if (B * Hkv > 1)
  for (int bg = 0; bg < B * Hkv; ++bg) {
    thread_local std::vector<float> buf_p, buf_dp;
    const int b = bg / Hkv, g = bg % Hkv;
    // k, v, dk, dv have Tk rows per batch (Tk = q_offset + T), not T.
    const float* kb = k + ((long)b * Tk * Hkv + g) * D;
    const float* vb = v + ((long)b * Tk * Hkv + g) * Dv;
    float* dkb = dk + ((long)b * Tk * Hkv + g) * D;
    float* dvb = dv + ((long)b * Tk * Hkv + g) * Dv;
    for (int j = 0; j < Tk; ++j) {
      std::fill_n(dkb + (long)j * Hkv * D, D, 0.0f);
      std::fill_n(dvb + (long)j * Hkv * Dv, Dv, 0.0f);
    }
    for (int h = g * group; h < (g + 1) * group; ++h) {
      for (int r0 = 0; r0 < T; r0 += kRowBlock) {
        const int rows = std::min(kRowBlock, T - r0), nk = d.q_offset + r0 + rows;
        float* P = scratch(buf_p, (size_t)rows * nk);    // [rows, nk]
        float* dP = scratch(buf_dp, (size_t)rows * nk);  // [rows, nk], becomes dS
        const long row0 = ((long)b * T + r0) * H + h;    // (b, r0, h) row of q/out
        const float* qb = q + row0 * D;
        const float* ob = out + row0 * Dv;
        const float* dob = dout + row0 * Dv;
        scores(P, qb, kb, rows, nk, d);
        // dP[rows, nk] = dO[rows, Dv] · vᵀ
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, nk, Dv, 1.0f, dob, H * Dv, vb,
                    Hkv * Dv, 0.0f, dP, nk);
        for (int i = 0; i < rows; ++i) {
          float* p = P + (long)i * nk;
          float* dp = dP + (long)i * nk;
          const int visible = d.q_offset + r0 + i + 1;
          const float L = lse[((long)b * H + h) * T + r0 + i];
          double di = 0;  // D_i = Σ_c dO_ic O_ic = Σ_j P_ij dP_ij
          for (int c = 0; c < Dv; ++c) di += (double)dob[(long)i * H * Dv + c] * ob[(long)i * H * Dv + c];
          softmax_grad(p, dp, visible, L, (float)di);
          for (int j = visible; j < nk; ++j) p[j] = dp[j] = 0.0f;
        }
        // dv[nk, Dv] += Pᵀ · dO ;  dq_block = scale · dS · k ;  dk[nk, D] += scale · dSᵀ · q_block
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, Dv, rows, 1.0f, P, nk, dob,
                    H * Dv, 1.0f, dvb, Hkv * Dv);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, D, nk, d.scale, dP, nk, kb,
                    Hkv * D, 0.0f, dq + row0 * D, H * D);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, D, rows, d.scale, dP, nk, qb,
                    H * D, 1.0f, dkb, Hkv * D);
      }
    }
  }
}

}  // namespace llm0
