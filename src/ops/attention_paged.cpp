// Paged attention over one sequence's page table (declared in attention_rows.h), blocked so that
// a prefill chunk's queries share their key and value loads — yet every (query, head) row is
// computed in one fixed order, bitwise the same whatever other rows share the call (a decode
// step's single query, a 64-token chunk, any thread split):
//   s_j  = scale · (fma chain over d = 0 .. D−1 of q_d · k_jd)        keys j0 .. i of the row
//   p_j  = e^(s_j − max) / Σ e^(s − max)   (simd::sum_exp over the row's own keys, from j0)
//   o_c  = fma chain over j = j0 .. i of p_j · v_jc
// q·k: the keys are transposed once per call and KV head into panels Kt[j / 16][d][16] (BF16
// widened exactly; 16 × 16 blocks in registers), so a tile of 4 rows × 32 keys holds the lanes
// across keys and walks d in order; a decode step's single tile transposes its keys in registers
// as it reads them, no panels written (the same chains). p·v: a tile of 4 rows × 64 value
// columns walks the keys in order (a row's causal tail past the tile's shortest row continues
// its chain alone).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/simd.h"
#include "core/simd_transpose.h"
#include "ops/attention_rows.h"

namespace llm0 {

namespace {
using simd::f32x16;
constexpr int L = simd::kWidth;
constexpr int kRows = 4;  // rows per tile

// Row pointers [Tk] into the pages: position j at row j % P of page j / P, `width` numbers a row.
template <class T>
void page_rows(std::vector<const T*>& rows, const void* const* pages, int P, long width, int Tk) {
  rows.resize((size_t)Tk);
  for (int j = 0; j < Tk; ++j)
    rows[(size_t)j] = static_cast<const T*>(pages[j / P]) + (long)(j % P) * width;
}

// Kt [ceil(n / 16)][D][16] = keys j0 + m (m < n) of one KV head (offset `off` in each row),
// widened; lanes past n zero. Whole blocks of 16 keys × 16 dims move through registers
// (simd::transpose16); a last partial block of keys, or dims past a multiple of 16, one number at
// a time.
template <class T>
void transpose_keys(float* Kt, const T* const* rows, long off, int j0, int n, int D) {
  const int full = n / L, D16 = D / L * L;
  for (int b = 0; b < full; ++b) {
    float* dst = Kt + (long)b * D * L;
    const T* const* r = rows + j0 + b * L;
    for (int d0 = 0; d0 < D16; d0 += L) {
      f32x16 blk[L];
      for (int m = 0; m < L; ++m) blk[m] = simd::load(r[m] + off + d0);
      simd::transpose16(blk);  // blk[d] = dim d0 + d of the 16 keys
      for (int d = 0; d < L; ++d) simd::store(dst + (long)(d0 + d) * L, blk[d]);
    }
  }
  if (D16 == D && full * L == n) return;
  const int nv = (n + L - 1) / L;
  if (full < nv) std::fill(Kt + (long)full * D * L, Kt + (long)nv * D * L, 0.0f);
  for (int m = 0; m < n; ++m) {
    const int d_from = m < full * L ? D16 : 0;  // whole blocks have their first D16 dims
    const T* r = rows[j0 + m] + off;
    float* dst = Kt + (long)(m / L) * D * L + m % L;
    for (int d = d_from; d < D; ++d) {
      if constexpr (sizeof(T) == 2) dst[(long)d * L] = std::bit_cast<float>((uint32_t)r[d] << 16);
      else dst[(long)d * L] = r[d];
    }
  }
}

// S[r][16 (v − v0) + lane] = scale · q_r·k for key vectors v ∈ [va, vb) of Kt (which holds the
// vectors from `first` on), RT rows.
template <int RT, int NV>
[[gnu::always_inline]] inline void qk_tile(float* const* S, const float* const* q, const float* kt,
                                           long col, int D, float scale) {
  f32x16 acc[RT][NV] = {};
  for (int d = 0; d < D; ++d) {
    f32x16 kv[NV];
    for (int c = 0; c < NV; ++c) kv[c] = simd::load(kt + ((long)c * D + d) * L);
    for (int r = 0; r < RT; ++r) {
      const f32x16 qv = q[r][d] - f32x16{};  // broadcast
      for (int c = 0; c < NV; ++c) acc[r][c] += qv * kv[c];
    }
  }
  for (int r = 0; r < RT; ++r)
    for (int c = 0; c < NV; ++c) simd::store(S[r] + col + (long)c * L, acc[r][c] * scale);
}

template <int RT>
void qk_rows(float* const* S, const float* const* q, const float* Kt, int first, int va, int vb,
             int v0, int D, float scale) {
  int v = va;
  for (; v + 2 <= vb; v += 2)
    qk_tile<RT, 2>(S, q, Kt + (long)(v - first) * D * L, (long)(v - v0) * L, D, scale);
  if (v < vb) qk_tile<RT, 1>(S, q, Kt + (long)(v - first) * D * L, (long)(v - v0) * L, D, scale);
}

// The same scores for whole key vectors v ∈ [va, vb) read from the rows (keys jlo + 16 v + m, KV
// head offset `off`; D a multiple of 16): each 16 keys × 16 dims block is transposed in registers
// and walked in d order, so every lane is the same fma chain as qk_tile's.
template <int RT, class T>
void qk_direct(float* const* S, const float* const* q, const T* const* K, long off, int jlo,
               int va, int vb, int v0, int D, float scale) {
  for (int v = va; v < vb; ++v) {
    const T* const* r = K + jlo + (long)v * L;
    f32x16 acc[RT] = {};
    for (int d0 = 0; d0 < D; d0 += L) {
      f32x16 blk[L];
      for (int m = 0; m < L; ++m) blk[m] = simd::load(r[m] + off + d0);
      simd::transpose16(blk);  // blk[d] = dim d0 + d of the 16 keys
      for (int d = 0; d < L; ++d)
        for (int i = 0; i < RT; ++i) {
          const f32x16 qv = q[i][d0 + d] - f32x16{};  // broadcast
          acc[i] += qv * blk[d];
        }
    }
    for (int i = 0; i < RT; ++i) simd::store(S[i] + (long)(v - v0) * L, acc[i] * scale);
  }
}

// out_r[c0 .. c0 + 16 NV) (+)= Σ_{j ∈ [ja, jb)} p_r[j − j0] · v_j[c], j in order; `cont`: the
// chains continue from out (a row's causal tail), else start at 0.
template <int RT, int NV, class T>
[[gnu::always_inline]] inline void pv_tile(float* const* out, const float* const* p,
                                           const T* const* V, long off, int j0, int ja, int jb,
                                           int c0, bool cont) {
  f32x16 acc[RT][NV] = {};
  if (cont)
    for (int r = 0; r < RT; ++r)
      for (int c = 0; c < NV; ++c) acc[r][c] = simd::load(out[r] + c0 + c * L);
  for (int j = ja; j < jb; ++j) {
    const T* vr = V[j] + off + c0;
    f32x16 vv[NV];
    for (int c = 0; c < NV; ++c) vv[c] = simd::load(vr + c * L);
    for (int r = 0; r < RT; ++r) {
      const f32x16 pv = p[r][j - j0] - f32x16{};  // broadcast
      for (int c = 0; c < NV; ++c) acc[r][c] += pv * vv[c];
    }
  }
  for (int r = 0; r < RT; ++r)
    for (int c = 0; c < NV; ++c) simd::store(out[r] + c0 + c * L, acc[r][c]);
}

template <int RT, class T>
void pv_rows(float* const* out, const float* const* p, const T* const* V, long off, int j0, int ja,
             int jb, int Dv, bool cont) {
  int c = 0;
  for (; c + 4 * L <= Dv; c += 4 * L) pv_tile<RT, 4>(out, p, V, off, j0, ja, jb, c, cont);
  for (; c + L <= Dv; c += L) pv_tile<RT, 1>(out, p, V, off, j0, ja, jb, c, cont);
  for (; c < Dv; ++c)  // the last Dv mod 16 columns: the same chain, one number at a time
    for (int r = 0; r < RT; ++r) {
      float a = cont ? out[r][c] : 0.0f;
      for (int j = ja; j < jb; ++j) {
        const T x = V[j][off + c];
        float v;
        if constexpr (sizeof(T) == 2) v = std::bit_cast<float>((uint32_t)x << 16);
        else v = x;
        a = std::fma(p[r][j - j0], v, a);
      }
      out[r][c] = a;
    }
}

// RT (≤ kRows) rows from a runtime count.
template <class F>
void with_rows(int rt, F&& f) {
  switch (rt) {
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    default: f(std::integral_constant<int, 1>{}); break;
  }
}

// The keys of one KV head as a task reads them: key vectors (16 keys each, counted from jlo)
// below `first` straight from the rows K (offset `off`), the others from the panels Kt.
template <class T>
struct KeyPanels {
  const T* const* K;
  long off;
  int jlo, first;
  const float* Kt;  // [vectors from `first`][D][16]
};

// One task: rows of queries [t0, t1) × the query heads of KV head g (all with the same first
// visible key j0 — no window, or one query). Scratch: S [rows][keys] (scores, then p).
template <class T>
void attend_block(float* out, const float* q, const KeyPanels<T>& keys, const T* const* V,
                  const AttentionDims& d, int g, int t0, int t1, std::vector<float>& S) {
  const int jlo = keys.jlo;
  const int group = d.H / d.Hkv, rows = (t1 - t0) * group;
  const int j0 = first_visible_key(d, d.q_offset + t0);
  const int i_max = d.q_offset + t1 - 1;
  const int v0 = (j0 - jlo) / L, v1 = (i_max - jlo) / L + 1;  // key vectors of Kt covering [j0, i_max]
  const long width = (long)(v1 - v0) * L;  // S row length; key j at S[r][jlo + 16 v0 .. ]
  if (S.size() < (size_t)rows * width) S.resize((size_t)rows * width);
  std::vector<const float*> qr((size_t)rows);
  std::vector<float*> sr((size_t)rows), orow((size_t)rows);
  std::vector<const float*> pr((size_t)rows);
  std::vector<int> last((size_t)rows);  // the row's last visible key i
  for (int r = 0; r < rows; ++r) {
    const int t = t0 + r / group, h = g * group + r % group;
    qr[(size_t)r] = q + ((long)t * d.H + h) * d.D;
    sr[(size_t)r] = S.data() + (long)r * width;
    orow[(size_t)r] = out + ((long)t * d.H + h) * d.Dv;
    last[(size_t)r] = d.q_offset + t;
  }
  // q·k for every row over the keys of the tile's longest row (extra scores are not used).
  for (int r = 0; r < rows; r += kRows)
    with_rows(std::min(kRows, rows - r), [&](auto rt) {
      constexpr int RT = decltype(rt)::value;
      const int vd = std::min(v1, std::max(v0, keys.first));  // [v0, vd) from the rows
      qk_direct<RT>(sr.data() + r, qr.data() + r, keys.K, keys.off, jlo, v0, vd, v0, d.D, d.scale);
      qk_rows<RT>(sr.data() + r, qr.data() + r, keys.Kt, keys.first, vd, v1, v0, d.D, d.scale);
    });
  // Softmax of each row over its own keys [j0, i]: p written over the scores from key j0 on.
  const int skip = j0 - (jlo + v0 * L);  // S index of key j0
  for (int r = 0; r < rows; ++r) {
    float* s = sr[(size_t)r] + skip;
    const int n = last[(size_t)r] - j0 + 1, h = g * group + r % group;
    const float* sink = d.sinks ? d.sinks + h : nullptr;
    float mx = simd::max_of(s, n);
    if (sink) mx = std::max(mx, *sink);
    double sum = simd::sum_exp(s, n, mx, s);  // s[j] ← e^{s[j] − mx}
    if (sink) sum += std::exp((double)*sink - mx);
    const float inv = (float)(1.0 / sum);
    for (int j = 0; j < n; ++j) s[j] *= inv;
    pr[(size_t)r] = s;
  }
  // p·v: tiles over the keys every row of the tile sees, then each longer row's tail alone.
  for (int r = 0; r < rows; r += kRows) {
    const int rt = std::min(kRows, rows - r);
    int common = last[(size_t)r];
    for (int k = 1; k < rt; ++k) common = std::min(common, last[(size_t)(r + k)]);
    with_rows(rt, [&](auto n) {
      pv_rows<decltype(n)::value>(orow.data() + r, pr.data() + r, V, (long)g * d.Dv, j0, j0, common + 1, d.Dv, false);
    });
    for (int k = 0; k < rt; ++k)
      if (last[(size_t)(r + k)] > common)
        pv_rows<1>(orow.data() + r + k, pr.data() + r + k, V, (long)g * d.Dv, j0, common + 1,
                   last[(size_t)(r + k)] + 1, d.Dv, true);
  }
}

template <class T>
void paged(float* out, const float* q, const T* const* K, const T* const* V, const AttentionDims& d,
           bool parallel) {
  const int jlo = first_visible_key(d, d.q_offset), nk = d.Tk - jlo, nv = (nk + L - 1) / L;
  // Queries per task: 4 share a tile without a window (every row starts at key 0); with a
  // window each query starts elsewhere, so a task holds one.
  const int qb = d.window > 0 ? 1 : 4, blocks = (d.Tq + qb - 1) / qb;
  const long tasks = (long)d.Hkv * blocks;
  // A task of at most kRows rows (a decode step: one query × a group of ≤ 4 heads) is a single
  // q·k tile that reads each key once, so its whole 16-key vectors are transposed in registers
  // as it reads them (qk_direct) and only a last partial vector goes through Kt; larger tasks
  // share panels transposed once per KV head.
  const bool direct = std::min(qb, d.Tq) * (d.H / d.Hkv) <= kRows && d.D % L == 0;
  const int first = direct ? nk / L : 0;
  const long kt_size = (long)(nv - first) * d.D * L;
  thread_local std::vector<float> Kt;  // [Hkv][nv − first][D][16]
  if (Kt.size() < (size_t)(kt_size * d.Hkv)) Kt.resize((size_t)(kt_size * d.Hkv));
  float* kt = Kt.data();
#pragma omp parallel if (parallel)
  {
#pragma omp for schedule(static)
    for (int g = 0; g < d.Hkv; ++g)
      transpose_keys(kt + g * kt_size, K, (long)g * d.D, jlo + first * L, nk - first * L, d.D);
    thread_local std::vector<float> S;
#pragma omp for schedule(dynamic)
    for (long task = 0; task < tasks; ++task) {
      const int g = (int)(task % d.Hkv), b = (int)(task / d.Hkv);
      const KeyPanels<T> keys{K, (long)g * d.D, jlo, first, kt + g * kt_size};
      attend_block(out, q, keys, V, d, g, b * qb, std::min(d.Tq, (b + 1) * qb), S);
    }
  }
}
}  // namespace

uint64_t attention_paged_forward(float* out, const float* q, const KvPages& kv,
                                 const AttentionDims& d) {
  LLM0_CHECK(d.B == 1 && d.Tq > 0 && d.H > 0 && d.Hkv > 0 && d.D > 0 && d.Dv > 0 &&
                 d.H % d.Hkv == 0 && d.k_stride == 0 && d.v_stride == 0 && kv.page_size >= 1,
             "paged attention: one sequence with packed rows, H divisible by Hkv and pages of >= 1 "
             "position (B={} Tq={} H={} Hkv={} D={} Dv={} page_size={})", d.B, d.Tq, d.H, d.Hkv,
             d.D, d.Dv, kv.page_size);
  LLM0_CHECK(d.q_offset >= 0 && d.q_offset + d.Tq <= d.Tk && d.window >= 0,
             "paged attention: q_offset={} + Tq={} exceeds Tk={} (window {})", d.q_offset, d.Tq,
             d.Tk, d.window);
  uint64_t pairs = 0;
  for (int t = 0; t < d.Tq; ++t) {
    const int i = d.q_offset + t;
    pairs += (uint64_t)(i + 1 - first_visible_key(d, i)) * (uint64_t)d.H;
  }
  const bool parallel = pairs * (uint64_t)(d.D + d.Dv) > 65536;
  thread_local KvRowPointers kp, vp;  // the lent rows, rebuilt per call (Tk pointers each)
  if (kv.bf16) {
    page_rows(kp.bf16, kv.k, kv.page_size, (long)d.Hkv * d.D, d.Tk);
    page_rows(vp.bf16, kv.v, kv.page_size, (long)d.Hkv * d.Dv, d.Tk);
    paged(out, q, kp.bf16.data(), vp.bf16.data(), d, parallel);
  } else {
    page_rows(kp.f32, kv.k, kv.page_size, (long)d.Hkv * d.D, d.Tk);
    page_rows(vp.f32, kv.v, kv.page_size, (long)d.Hkv * d.Dv, d.Tk);
    paged(out, q, kp.f32.data(), vp.f32.data(), d, parallel);
  }
  return pairs;
}

}  // namespace llm0
