// Attention over cached K/V rows read as they are stored — float32 or bfloat16 — without widening
// the cache first. attend_query_rows: one query against rows addressed by pointers, one per cached
// position; q·k and the value accumulation widen each BF16 row in registers (ops/bf16_kernels.h:
// bf16_dot_rows, bf16_weighted_rows; run-time ISA choice, scalar reference) — MLA's latent rows
// (layers/mla_cached.cpp). attention_paged_forward (implemented in attention_paged.cpp): every
// other cached attention of the model, through a page table (a single sequence's cache is one
// page), in tiles of query rows.
// Math: Vaswani et al., arXiv:1706.03762 eq. 1, with GQA grouping, sliding window and sinks as
// attention.h defines them (the same visibility rule: first_visible_key).
// Layouts: q [H, D], out [H, Dv]; row j of K holds [Hkv, D] (KV head g at element g·D), row j of
// V holds [Hkv, Dv] (KV head g at element g·Dv), unless offsets say otherwise (MLA latent rows).
#pragma once
#include <cstdint>
#include <vector>

#include "ops/attention.h"

namespace llm0 {

/// The cached rows of K or V: position j's row is f32[j] (float32 rows) or bf16[j] (bfloat16
/// bits); exactly one of the two is set.
struct KvRowSet {
  const float* const* f32 = nullptr;     // [Tk] row starts
  const uint16_t* const* bf16 = nullptr;  // [Tk] row starts
};

/// Storage for the row pointers of a KvRowSet (filled by the cache that lends its rows).
struct KvRowPointers {
  std::vector<const float*> f32;
  std::vector<const uint16_t*> bf16;
};

/// One query against rows [0, n) of one KV head: with s_j = scale · q·k_j (k_j = row j0 + j of k +
/// k_off elements, D numbers) and p = softmax(s [+ sink column, dropped after it]),
/// out[Dv] = Σ_j p_j v_j (v_j = row j0 + j of v + v_off elements). `s` is scratch [n]. Returns the
/// log-sum-exp of the softmax (natural-log units). Accumulation in float32; BF16 rows widened
/// exactly, so F32 and BF16 rows holding the same values give the same result within float32
/// summation-order rounding.
float attend_query_rows(float* out, const float* q, const KvRowSet& k, long k_off, const KvRowSet& v,
                        long v_off, int j0, int n, int D, int Dv, float scale, const float* sink,
                        float* s);

/// K/V rows of ONE sequence read through a page table (cache/page_pool.h): position j lives in
/// page j / page_size at row j % page_size; a page's K rows are Hkv·D numbers apart, its V rows
/// Hkv·Dv. A contiguous cache is the one-page case (page_size ≥ Tk).
struct KvPages {
  const void* const* k = nullptr;  // [pages] first K row of each page
  const void* const* v = nullptr;  // [pages] first V row of each page
  int page_size = 0;
  bool bf16 = false;  // rows hold bfloat16 bits (widened exactly when read), else float32
};

/// Paged attention (PagedAttention, Kwon et al., SOSP 2023): out [Tq, H, Dv] = softmax(scale ·
/// q kᵀ + mask [+ sink]) v for q [Tq, H, D] of one sequence (d.B = 1) at positions q_offset + t,
/// keys and values read row by row through `kv` (no gather of the history). Each (query, head)
/// row is computed in one fixed order — s_j = scale · (fma chain over d of q_d k_jd), the
/// softmax over the row's own keys, out_c = fma chain over j of p_j v_jc — bitwise independent
/// of Tq, of the other rows, of the tiles (4 rows share key and value loads) and of the threads.
/// Scratch: the keys transposed per KV head, Tk · D floats each.
/// Returns the visible pairs (as attention_forward).
/// Throws llm0::Error on inconsistent dims, strides other than packed, or page_size < 1.
uint64_t attention_paged_forward(float* out, const float* q, const KvPages& kv,
                                 const AttentionDims& d);

}  // namespace llm0
