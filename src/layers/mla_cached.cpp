// Multi-head latent attention's cached forward, one sequence or many (MlaLayer::forward_cached,
// see mla.h). The latent rows [c | k_pe] of each sequence live in pages (a PagedKvCache whose K
// row is r + dr numbers and which has no V row: the server's pool, or the one page of a single
// sequence's cache). Two decode forms read the same rows. Absorbed (DeepSeek-V2,
// arXiv:2405.04434 §2.1.2), with every product in a fixed per-row order: the query absorption q_nope,h · W_UK,h and the value expansion
// o_lat,h · W_UV,hᵀ as plain loops (sgemm's blocking could depend on the rows in the call), the
// scores and weighted sums with attend_query_rows over the rows read through the page table.
// Expanded (the teaching form: what the cache saves, counted): every cached latent re-expanded
// into per-head k_nope and v through kv_b_proj, then plain attention (sgemm order).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "layers/mla.h"
#include "ops/attention_rows.h"
#include "ops/matmul.h"

namespace llm0 {

void MlaLayer::absorb_queries(int N, const MlaInferScratch& g) const {
  const MlaConfig& m = cfg->mla;
  const int H = cfg->num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim;
  const int dr = m.qk_rope_head_dim, D = dn + dr, E = dn + m.v_head_dim, R = r + dr;
  // Absorbed queries q_abs [N, H, r + dr] = [q_nope,h · W_UK,h | q_pe,h].
#pragma omp parallel for schedule(static) if ((long)N * H * dn * r > 65536)
  for (long th = 0; th < (long)N * H; ++th) {
    const int h = (int)(th % H);
    const float* W_UK = w.kv_b_w + (long)h * E * r;  // [dn, r]
    const float* qn = g.q + th * D;
    float* qa = g.q_abs + th * R;
    std::fill(qa, qa + r, 0.0f);
    for (int i = 0; i < dn; ++i)
      for (int j = 0; j < r; ++j) qa[j] += qn[i] * W_UK[(long)i * r + j];
    std::memcpy(qa + r, qn + dn, sizeof(float) * dr);
  }
}

uint64_t MlaLayer::attend_latent_rows(const KvRowSet& rows, int row0, int n, int pos,
                                      const MlaInferScratch& g, WorkCounters& counters) const {
  const MlaConfig& m = cfg->mla;
  const int H = cfg->num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim;
  const int dv = m.v_head_dim, R = r + m.qk_rope_head_dim, S = pos + n;
  const float scale = dims(1, n, S, pos).scale;
#pragma omp parallel for schedule(static) if ((long)n * H * S * R > 65536)
  for (long th = 0; th < (long)n * H; ++th) {
    const long row = (long)row0 * H + th;
    const int t = (int)(th / H);
    std::vector<float> sc((size_t)S);
    attend_query_rows(g.o_lat + row * r, g.q_abs + row * R, rows, 0, rows, 0, 0, pos + t + 1, R,
                      r, scale, nullptr, sc.data());
  }
  const uint64_t qk = (uint64_t)H * ((uint64_t)n * pos + (uint64_t)n * (n + 1) / 2);
  counters.attn_macs += (uint64_t)n * H * (uint64_t)(dn + dv) * r + qk * (uint64_t)(R + r);
  return qk;
}

void MlaLayer::expand_values(int N, const MlaInferScratch& g) const {
  const MlaConfig& m = cfg->mla;
  const int H = cfg->num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim;
  const int dv = m.v_head_dim, E = dn + dv;
  // Head outputs attn [N, H, dv] = o_lat,h · W_UV,hᵀ.
#pragma omp parallel for schedule(static) if ((long)N * H * dv * r > 65536)
  for (long th = 0; th < (long)N * H; ++th) {
    const int h = (int)(th % H);
    const float* ol = g.o_lat + th * r;
    float* out = g.attn + th * dv;
    for (int d = 0; d < dv; ++d) {
      const float* W_UV = w.kv_b_w + ((long)h * E + dn + d) * r;  // row d of head h's v rows
      float acc = 0;
      for (int j = 0; j < r; ++j) acc += ol[j] * W_UV[j];
      out[d] = acc;
    }
  }
}

uint64_t MlaLayer::attend_expanded(const KvRowSet& rows, int row0, int n, int pos,
                                   const MlaInferScratch& g, WorkCounters& counters) const {
  const MlaConfig& m = cfg->mla;
  const int H = cfg->num_attention_heads, r = m.kv_lora_rank, R = r + m.qk_rope_head_dim;
  const int S = pos + n, D = m.qk_head_dim(), dv = m.v_head_dim;
  for (int j = 0; j < S; ++j) {  // the rows as float32 [S, r + dr] (exact widening of BF16)
    float* dst = g.lat + (long)j * R;
    if (rows.bf16)
      for (int i = 0; i < R; ++i) dst[i] = bf16_to_float(rows.bf16[j][i]);
    else
      std::memcpy(dst, rows.f32[j], sizeof(float) * R);
  }
  // Every cached token's k_nope and v, re-created from its latent: S · r · H(dn+dv) MACs.
  expand(g.lat, R, g.lat + r, R, S, g.kv, g.k, g.v);
  const AttentionDims d = dims(1, n, S, pos);
  const uint64_t qk = attention_forward(g.attn + (long)row0 * H * dv, nullptr,
                                        g.q + (long)row0 * H * D, g.k, g.v, d);
  counters.attn_macs += (uint64_t)S * r * H * (m.qk_nope_head_dim + dv) +
                        qk * (uint64_t)(d.D + d.Dv);
  return qk;
}

void MlaLayer::forward_cached(const float* x, int N, const int* positions,
                              std::span<const BatchSegment> segs, const MlaInferScratch& g,
                              const InferOptions& opt, float* y, WorkCounters& counters) const {
  const MlaConfig& m = cfg->mla;
  const int r = m.kv_lora_rank, dr = m.qk_rope_head_dim, R = r + dr;
  const bool absorbed = opt.mla_decode == MlaDecode::Absorbed;
  project_q(x, N, positions, g.q, g.cq, g.cq_n, nullptr, opt.linear);
  project_latent(x, N, positions, g.kv_a, g.c_raw, g.c, nullptr, opt.linear);
  std::vector<float> rows((size_t)N * R);  // [N, r + dr] new latent rows [c | k_pe]
  for (int t = 0; t < N; ++t) {
    std::memcpy(rows.data() + (size_t)t * R, g.c + (size_t)t * r, sizeof(float) * r);
    std::memcpy(rows.data() + (size_t)t * R + r, g.kv_a + (size_t)t * R + r, sizeof(float) * dr);
  }
  if (absorbed) absorb_queries(N, g);
  for (const BatchSegment& s : segs) {
    auto* cache = &cache_as<PagedKvCache>(*s.cache, il, kind_name());
    cache->append(s.pos, s.n, rows.data() + (size_t)s.row0 * R, nullptr);
    // The segment's rows through its page table: one pointer per cached position; the values
    // are each row's first r numbers (the latent c).
    const KvPages pages = cache->view();
    const int S = s.pos + s.n;
    KvRowPointers ptrs;
    KvRowSet set;
    if (pages.bf16) {
      ptrs.bf16.resize((size_t)S);
      for (int j = 0; j < S; ++j)
        ptrs.bf16[(size_t)j] = static_cast<const uint16_t*>(pages.k[j / pages.page_size]) +
                               (long)(j % pages.page_size) * R;
      set.bf16 = ptrs.bf16.data();
    } else {
      ptrs.f32.resize((size_t)S);
      for (int j = 0; j < S; ++j)
        ptrs.f32[(size_t)j] = static_cast<const float*>(pages.k[j / pages.page_size]) +
                              (long)(j % pages.page_size) * R;
      set.f32 = ptrs.f32.data();
    }
    counters.qk_scores += absorbed ? attend_latent_rows(set, s.row0, s.n, s.pos, g, counters)
                                   : attend_expanded(set, s.row0, s.n, s.pos, g, counters);
    counters.kv_bytes_read += (uint64_t)S * (uint64_t)R * (uint64_t)cache->bytes_per_number();
  }
  if (absorbed) expand_values(N, g);
  counters.kv_projected += (uint64_t)N;
  linear_forward(y, g.attn, w.o_w, w.o_b, N, cfg->num_attention_heads * m.v_head_dim,
                 cfg->hidden_size, opt.linear);
}

}  // namespace llm0
