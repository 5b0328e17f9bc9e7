// Causal grouped-query attention (sliding window, sinks) on OpenBLAS, processed in blocks of query
// rows so that each block only multiplies against the keys it can see. See attention.h and
// docs/derivations/attention.md.
#include "ops/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/simd.h"
#include "core/threads.h"

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
  LLM0_CHECK(d.window >= 0, "attention: sliding window {} must be >= 0", d.window);
  LLM0_CHECK(d.k_row() >= (long)d.Hkv * d.D && d.v_row() >= (long)d.Hkv * d.Dv,
             "attention: key/value row strides {}/{} are shorter than a row", d.k_row(), d.v_row());
}

// The keys a block of query rows [r0, r0 + rows) multiplies against: [k0, k0 + nk), from the
// first row's window edge to the last row's own position.
struct KeySpan {
  int k0, nk;
};
KeySpan key_span(const AttentionDims& d, int r0, int rows) {
  const int k0 = first_visible_key(d, d.q_offset + r0);
  return {k0, d.q_offset + r0 + rows - k0};
}

// Row i of a block (span k0): visible keys [lo, hi) relative to k0.
struct RowSpan {
  int lo, hi;
};
RowSpan row_span(const AttentionDims& d, const KeySpan& ks, int r0, int i) {
  const int pos = d.q_offset + r0 + i;
  return {first_visible_key(d, pos) - ks.k0, pos + 1 - ks.k0};
}

// S[rows, nk] = scale · q_block · kᵀ  (q rows strided by H·D, k rows by Hkv·D).
void scores(float* S, const float* qb, const float* kb, int rows, int nk, const AttentionDims& d) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, nk, d.D, d.scale, qb, d.H * d.D, kb,
              (int)d.k_row(), 0.0f, S, nk);
}

// Softmax of one row's visible scores s[lo, hi) in place (the sink, when given, joins the
// normaliser); everything outside [lo, hi) becomes exactly 0. Returns the log-sum-exp.
float softmax_row(float* s, int nk, RowSpan r, const float* sink) {
  float mx = simd::max_of(s + r.lo, r.hi - r.lo);
  if (sink) mx = std::max(mx, *sink);
  double sum = simd::sum_exp(s + r.lo, r.hi - r.lo, mx, s + r.lo);  // s[j] ← e^{s[j] - mx}
  if (sink) sum += std::exp((double)*sink - mx);
  const float inv = (float)(1.0 / sum);
  for (int j = r.lo; j < r.hi; ++j) s[j] *= inv;
  std::fill(s, s + r.lo, 0.0f);  // masked: weight exactly 0
  std::fill(s + r.hi, s + nk, 0.0f);
  return mx + (float)std::log(sum);
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

// Visible pairs B · H · Σ_t (number of keys query t sees).
uint64_t visible_pairs(const AttentionDims& d) {
  uint64_t pairs = 0;
  for (int t = 0; t < d.Tq; ++t)
    pairs += (uint64_t)(d.q_offset + t + 1 - first_visible_key(d, d.q_offset + t));
  return pairs * (uint64_t)d.B * (uint64_t)d.H;
}

// Decode (Tq = 1): the query heads sharing a KV head are consecutive rows of q ([group, D], row
// stride D) and of out, so one product per (b, KV head) reads its keys and values once for the
// whole group instead of once per query head (GQA, MQA, MLA's absorbed form). With fewer
// (b, KV head) pairs than threads the group's rows are split among the threads: each product
// then runs inside this OpenMP region (OpenBLAS's own threads on an [8, n] product collapsed
// to a tenth of one thread's speed here).
void decode_grouped(float* out, float* lse, const float* q, const float* k, const float* v,
                    const AttentionDims& d, long work) {
  const int B = d.B, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv, group = H / Hkv;
  const KeySpan span = key_span(d, 0, 1);
  const RowSpan row = row_span(d, span, 0, 0);
  const long ks = d.k_row(), vs = d.v_row();
  const int threads = work > 65536 ? num_threads() : 1;
  const int splits = B * Hkv >= threads ? 1 : std::min(group, threads / (B * Hkv));
  const int per = (group + splits - 1) / splits;  // rows of one task
#pragma omp parallel for schedule(dynamic) if (B * Hkv * splits > 1 && work > 65536)
  for (int task = 0; task < B * Hkv * splits; ++task) {
    thread_local std::vector<float> buf;
    const int bg = task / splits, b = bg / Hkv, g = bg % Hkv;
    const int h0 = g * group + (task % splits) * per;
    const int rows = std::min(per, (g + 1) * group - h0);
    if (rows <= 0) continue;
    const float* kb = k + (long)b * d.Tk * ks + (long)g * D + (long)span.k0 * ks;
    const float* vb = v + (long)b * d.Tk * vs + (long)g * Dv + (long)span.k0 * vs;
    float* S = scratch(buf, (size_t)rows * span.nk);  // [rows, nk]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, span.nk, D, d.scale,
                q + ((long)b * H + h0) * D, D, kb, (int)ks, 0.0f, S, span.nk);
    for (int i = 0; i < rows; ++i) {
      const float L = softmax_row(S + (long)i * span.nk, span.nk, row,
                                  d.sinks ? d.sinks + h0 + i : nullptr);
      if (lse) lse[(long)b * H + h0 + i] = L;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, Dv, span.nk, 1.0f, S, span.nk,
                vb, (int)vs, 0.0f, out + ((long)b * H + h0) * Dv, Dv);
  }
}

}  // namespace

uint64_t attention_forward(float* out, float* lse, const float* q, const float* k, const float* v,
                           const AttentionDims& d) {
  check_dims(d);
  const int B = d.B, Tq = d.Tq, Tk = d.Tk, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv;
  const int group = H / Hkv;
  const uint64_t pairs = visible_pairs(d);
  // Threads only when there is enough work: a parallel region costs more than a decode step's
  // attention for small models.
  const long work = (long)(pairs * (uint64_t)(D + Dv));
  if (Tq == 1 && group > 1) {
    decode_grouped(out, lse, q, k, v, d, work);
    return pairs;
  }
#pragma omp parallel for schedule(dynamic) if (B * H > 1 && work > 65536)
  for (int bh = 0; bh < B * H; ++bh) {
    thread_local std::vector<float> buf;
    const int b = bh / H, h = bh % H, g = h / group;
    const long ks = d.k_row(), vs = d.v_row();
    const float* kb = k + (long)b * Tk * ks + (long)g * D;    // k[b, 0, g, :]
    const float* vb = v + (long)b * Tk * vs + (long)g * Dv;   // v[b, 0, g, :]
    const float* sink = d.sinks ? d.sinks + h : nullptr;
    for (int r0 = 0; r0 < Tq; r0 += kRowBlock) {
      const int rows = std::min(kRowBlock, Tq - r0);
      const KeySpan span = key_span(d, r0, rows);
      float* S = scratch(buf, (size_t)rows * span.nk);  // [rows, nk]
      const float* qb = q + (((long)b * Tq + r0) * H + h) * D;
      scores(S, qb, kb + (long)span.k0 * ks, rows, span.nk, d);
      for (int i = 0; i < rows; ++i) {
        const float L = softmax_row(S + (long)i * span.nk, span.nk, row_span(d, span, r0, i), sink);
        if (lse) lse[((long)b * H + h) * Tq + r0 + i] = L;
      }
      // out_block[rows, Dv] = P[rows, nk] · v[k0 .. k0 + nk, Dv]
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, Dv, span.nk, 1.0f, S, span.nk,
                  vb + (long)span.k0 * vs, (int)vs, 0.0f,
                  out + (((long)b * Tq + r0) * H + h) * Dv, H * Dv);
    }
  }
  return pairs;
}

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q,
                        const float* k, const float* v, const float* out, const float* lse,
                        const AttentionDims& d, float* dsinks) {
  check_dims(d);
  LLM0_CHECK(d.q_offset + d.Tq == d.Tk, "attention_backward needs q_offset + Tq == Tk");
  LLM0_CHECK(d.k_stride == 0 && d.v_stride == 0, "attention_backward needs packed K/V rows");
  const int B = d.B, T = d.Tq, Tk = d.Tk, H = d.H, Hkv = d.Hkv, D = d.D, Dv = d.Dv;
  const int group = H / Hkv;
  // ∂L/∂sink per (b, h), each written by the one task that owns (b, h); summed over b in order.
  std::vector<double> dsink_bh(d.sinks && dsinks ? (size_t)B * H : 0, 0.0);
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
      double dsink = 0;
      for (int r0 = 0; r0 < T; r0 += kRowBlock) {
        const int rows = std::min(kRowBlock, T - r0);
        const KeySpan ks = key_span(d, r0, rows);
        const int nk = ks.nk;
        const long kofs = (long)ks.k0 * Hkv;             // first key row of the span
        float* P = scratch(buf_p, (size_t)rows * nk);    // [rows, nk]
        float* dP = scratch(buf_dp, (size_t)rows * nk);  // [rows, nk], becomes dS
        const long row0 = ((long)b * T + r0) * H + h;    // (b, r0, h) row of q/out
        const float* qb = q + row0 * D;
        const float* ob = out + row0 * Dv;
        const float* dob = dout + row0 * Dv;
        scores(P, qb, kb + kofs * D, rows, nk, d);
        // dP[rows, nk] = dO[rows, Dv] · vᵀ
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, nk, Dv, 1.0f, dob, H * Dv,
                    vb + kofs * Dv, Hkv * Dv, 0.0f, dP, nk);
        for (int i = 0; i < rows; ++i) {
          float* p = P + (long)i * nk;
          float* dp = dP + (long)i * nk;
          const RowSpan r = row_span(d, ks, r0, i);
          const float L = lse[((long)b * H + h) * T + r0 + i];
          double di = 0;  // D_i = Σ_c dO_ic O_ic = Σ_j P_ij dP_ij
          for (int c = 0; c < Dv; ++c) di += (double)dob[(long)i * H * Dv + c] * ob[(long)i * H * Dv + c];
          softmax_grad(p + r.lo, dp + r.lo, r.hi - r.lo, L, (float)di);
          std::fill(p, p + r.lo, 0.0f), std::fill(dp, dp + r.lo, 0.0f);
          std::fill(p + r.hi, p + nk, 0.0f), std::fill(dp + r.hi, dp + nk, 0.0f);
          if (d.sinks) dsink -= std::exp((double)d.sinks[h] - L) * di;  // P_sink (0 − D_i)
        }
        // dv[nk, Dv] += Pᵀ · dO ;  dq_block = scale · dS · k ;  dk[nk, D] += scale · dSᵀ · q_block
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, Dv, rows, 1.0f, P, nk, dob,
                    H * Dv, 1.0f, dvb + kofs * Dv, Hkv * Dv);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, D, nk, d.scale, dP, nk,
                    kb + kofs * D, Hkv * D, 0.0f, dq + row0 * D, H * D);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nk, D, rows, d.scale, dP, nk, qb,
                    H * D, 1.0f, dkb + kofs * D, Hkv * D);
      }
      if (!dsink_bh.empty()) dsink_bh[(size_t)b * H + h] = dsink;
    }
  }
  for (int h = 0; h < H && !dsink_bh.empty(); ++h) {
    double s = 0;
    for (int b = 0; b < B; ++b) s += dsink_bh[(size_t)b * H + h];
    dsinks[h] += (float)s;
  }
}

}  // namespace llm0
