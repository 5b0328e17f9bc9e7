// Causal grouped-query attention (sliding window, sinks), processed in blocks of query rows so that
// each block only multiplies against the keys it can see; the per-block products on OpenBLAS, or
// with BF16 operands under mixed-precision training (AttentionDims::bf16_products,
// ops/attention_gemm.h). See attention.h and docs/derivations/attention.md.
#include "ops/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/check.h"
#include "core/simd.h"
#include "core/threads.h"
#include "ops/attention_gemm.h"

namespace llm0 {

namespace {

constexpr int kRowBlock = 64;  // query rows per block: bounds the scratch to [64, Tk]
// Query rows per block: float32 kRowBlock; BF16 reads keys and values packed once per head, so
// smaller blocks cost no repacking and compute fewer masked scores above the diagonal.
int row_block(const AttentionDims& d) { return d.bf16_products ? 32 : kRowBlock; }

// Per-thread scratch, grown once and reused (no allocation per call after warm-up).
template <class X>
X* scratch(std::vector<X>& buf, size_t n) {
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
  LLM0_CHECK(!d.bf16_products || d.scale > 0, "attention: BF16 products need a positive score "
             "scale (softmax reads scale · S and takes its max), got {}", d.scale);
  LLM0_CHECK(d.k_row() >= (long)d.Hkv * d.D && d.v_row() >= (long)d.Hkv * d.Dv,
             "attention: key/value row strides {}/{} are shorter than a row", d.k_row(), d.v_row());
}

// The keys a block of query rows [r0, r0 + rows) multiplies against: [k0, k0 + nk), from the
// first row's window edge to the last row's own position. BF16 reads keys packed once per head
// in panels of kBf16PanelCols: k0 then starts a panel (the keys before the window edge that
// adds are masked like every invisible key).
struct KeySpan {
  int k0, nk;
};
KeySpan key_span(const AttentionDims& d, int r0, int rows) {
  int k0 = first_visible_key(d, d.q_offset + r0);
  if (d.bf16_products) k0 -= k0 % kBf16PanelCols;
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

// Scores of a block, S[rows, nk] = q_block · kᵀ times `score_alpha` (q rows strided by H·D, k rows
// by k_row()); the scaled score is score_c(d) · S. Float32: the scale is the product's alpha (c = 1).
// BF16: c = scale, applied where softmax reads S, not in a pass of its own.
float score_alpha(const AttentionDims& d) { return d.bf16_products ? 1.0f : d.scale; }
float score_c(const AttentionDims& d) { return d.bf16_products ? d.scale : 1.0f; }
// keys: B(j, c) = k_j,c of the head (n0 = the span's first key).
void scores(float* S, const float* qb, const AttentionB& keys, KeySpan span, int rows,
            const AttentionDims& d) {
  attention_gemm(S, span.nk, {qb, (long)d.H * d.D, 1}, keys, span.k0, 0, rows, span.nk, d.D,
                 score_alpha(d), false, d.bf16_products);
}

// x(n, k) of one head's keys or values [Tk rows] as a product's B operand: read in place, or
// under BF16 packed into `buf` once (per head) for every block's product.
AttentionB head_operand(GemmOperand x, int N, int K, bool bf16, PackedB& buf) {
  if (!bf16) return {x, nullptr};
  pack_b(buf, x, N, K);
  return {x, &buf};
}

// Softmax of one row's visible scores c·s[lo, hi) in place (c > 0; the sink, when given, joins
// the normaliser); everything outside [lo, hi) becomes exactly 0. Returns the log-sum-exp.
float softmax_row(float* s, int nk, RowSpan r, const float* sink, float c = 1.0f) {
  float mx = c * simd::max_of(s + r.lo, r.hi - r.lo);
  if (sink) mx = std::max(mx, *sink);
  double sum = simd::sum_exp(s + r.lo, r.hi - r.lo, mx, s + r.lo, c);  // s[j] ← e^{c s[j] - mx}
  if (sink) sum += std::exp((double)*sink - mx);
  const float inv = (float)(1.0 / sum);
  for (int j = r.lo; j < r.hi; ++j) s[j] *= inv;
  std::fill(s, s + r.lo, 0.0f);  // masked: weight exactly 0
  std::fill(s + r.hi, s + nk, 0.0f);
  return mx + (float)std::log(sum);
}

// For j < n: p[j] ← P_ij = e^{c·s_ij - L_i} (p holds the scores s, L the saved log-sum-exp) and
// dp[j] ← k · dS_ij = k · P_ij (dP_ij - D_i) (k = 1, or the score scale folded in for BF16). The
// last n % 16 as one vector too (no scalar exp).
void softmax_grad(float* p, float* dp, int n, float L, float Di, float c, float k) {
  constexpr int W = simd::kWidth;
  for (int j = 0; j < n; j += W) {
    const int lanes = std::min(W, n - j);
    const simd::f32x16 e = simd::exp(simd::load_part(p + j, lanes) * c - L);
    simd::store_part(p + j, e, lanes);
    const simd::f32x16 ds = e * (simd::load_part(dp + j, lanes) - Di);
    simd::store_part(dp + j, k == 1.0f ? ds : ds * k, lanes);
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
  if (Tq == 1 && group > 1 && !d.bf16_products) {
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
    thread_local PackedB k_buf, v_buf;
    const AttentionB keys = head_operand({kb, ks, 1}, Tk, D, d.bf16_products, k_buf);  // [Tk, D]
    const AttentionB values = head_operand({vb, 1, vs}, Dv, Tk, d.bf16_products, v_buf);  // vᵀ
    for (int r0 = 0; r0 < Tq; r0 += row_block(d)) {
      const int rows = std::min(row_block(d), Tq - r0);
      const KeySpan span = key_span(d, r0, rows);
      float* S = scratch(buf, (size_t)rows * span.nk);  // [rows, nk]
      const float* qb = q + (((long)b * Tq + r0) * H + h) * D;
      scores(S, qb, keys, span, rows, d);
      for (int i = 0; i < rows; ++i) {
        const float L = softmax_row(S + (long)i * span.nk, span.nk, row_span(d, span, r0, i), sink,
                                    score_c(d));
        if (lse) lse[((long)b * H + h) * Tq + r0 + i] = L;
      }
      // out_block[rows, Dv] = P[rows, nk] · v[k0 .. k0 + nk, Dv]
      attention_gemm(out + (((long)b * Tq + r0) * H + h) * Dv, (long)H * Dv, {S, span.nk, 1},
                     values, 0, span.k0, rows, Dv, span.nk, 1.0f, false, d.bf16_products);
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
  // The score scale enters dQ and dK: as the products' alpha in float32 (the bits of before),
  // folded into dS before its rounding in BF16 (gemm_bf16 has no alpha for dK's +=).
  const bool bf16 = d.bf16_products;
  const float ds_scale = bf16 ? d.scale : 1.0f, ds_alpha = bf16 ? 1.0f : d.scale;
  // ∂L/∂sink per (b, h), each written by the one task that owns (b, h); summed over b in order.
  std::vector<double> dsink_bh(d.sinks && dsinks ? (size_t)B * H : 0, 0.0);
  // D_i = Σ_c dO_ic O_ic = Σ_j P_ij dP_ij for every row (b, t, h) of out, [B, T, H], in one
  // pass over out and dout in memory order. Read inside the per-head loop instead, one row per
  // H·Dv floats, out's loads were cache misses: a third of that loop's own time (llm0-small).
  thread_local std::vector<double> buf_di;
  double* Di = scratch(buf_di, (size_t)B * T * H);
  const long nrows = (long)B * T * H;
#pragma omp parallel for schedule(static) if (nrows * Dv > 65536)
  for (long r = 0; r < nrows; ++r) Di[r] = simd::dot_f64(dout + r * Dv, out + r * Dv, Dv);
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
    // The group's keys as [Tk, D] (scores) and as kᵀ (dQ), its values as [Tk, Dv] (dP).
    thread_local PackedB k_buf, kt_buf, v_buf;
    const long kr = (long)Hkv * D, vr = (long)Hkv * Dv;
    const AttentionB keys = head_operand({kb, kr, 1}, Tk, D, bf16, k_buf);
    const AttentionB keys_t = head_operand({kb, 1, kr}, D, Tk, bf16, kt_buf);
    const AttentionB values = head_operand({vb, vr, 1}, Tk, Dv, bf16, v_buf);
    for (int h = g * group; h < (g + 1) * group; ++h) {
      double dsink = 0;
      for (int r0 = 0; r0 < T; r0 += row_block(d)) {
        const int rows = std::min(row_block(d), T - r0);
        const KeySpan ks = key_span(d, r0, rows);
        const int nk = ks.nk;
        const long kofs = (long)ks.k0 * Hkv;             // first key row of the span
        float* P = scratch(buf_p, (size_t)rows * nk);    // [rows, nk]
        float* dP = scratch(buf_dp, (size_t)rows * nk);  // [rows, nk], becomes dS
        const long row0 = ((long)b * T + r0) * H + h;    // (b, r0, h) row of q/out
        const float* qb = q + row0 * D;
        const float* dob = dout + row0 * Dv;
        scores(P, qb, keys, ks, rows, d);
        // dP[rows, nk] = dO[rows, Dv] · vᵀ
        attention_gemm(dP, nk, {dob, (long)H * Dv, 1}, values, ks.k0, 0, rows, nk, Dv, 1.0f, false,
                       bf16);
        for (int i = 0; i < rows; ++i) {
          float* p = P + (long)i * nk;
          float* dp = dP + (long)i * nk;
          const RowSpan r = row_span(d, ks, r0, i);
          const float L = lse[((long)b * H + h) * T + r0 + i];
          const double di = Di[row0 + (long)i * H];
          softmax_grad(p + r.lo, dp + r.lo, r.hi - r.lo, L, (float)di, score_c(d), ds_scale);
          std::fill(p, p + r.lo, 0.0f), std::fill(dp, dp + r.lo, 0.0f);
          std::fill(p + r.hi, p + nk, 0.0f), std::fill(dp + r.hi, dp + nk, 0.0f);
          if (d.sinks) dsink -= std::exp((double)d.sinks[h] - L) * di;  // P_sink (0 − D_i)
        }
        // dv[nk, Dv] += Pᵀ · dO ;  dq_block = scale · dS · k ;  dk[nk, D] += scale · dSᵀ · q_block
        attention_gemm(dvb + kofs * Dv, (long)Hkv * Dv, {P, 1, nk}, {dob, 1, (long)H * Dv}, nk,
                       Dv, rows, 1.0f, true, bf16);
        attention_gemm(dq + row0 * D, (long)H * D, {dP, nk, 1}, keys_t, 0, ks.k0, rows, D, nk,
                       ds_alpha, false, bf16);
        attention_gemm(dkb + kofs * D, (long)Hkv * D, {dP, 1, nk}, {qb, 1, (long)H * D}, nk, D,
                       rows, ds_alpha, true, bf16);
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
