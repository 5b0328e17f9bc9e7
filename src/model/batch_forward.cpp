// Model::forward_batch: the serving engine's ragged batch step. See model.h.
// x [N, C] holds the new tokens of B sequences one after the other (sequence b's rows are
// [row0_b, row0_b + n_b)); everything but the sequence mixing is per token row, so it runs on all
// N rows at once; attention runs per sequence through its page table (full layers) or its window
// (sliding layers) or its latent rows (MLA), Gated DeltaNet's convolution and delta rule per
// sequence on its state. RowIndependentLinear routes every
// linear map (q/k/v/o, gate/up/down, experts, router, lm_head) through ops/linear_rows.h, whose
// per-element order does not depend on N: the determinism contract of serve/batch_engine.h.
#include <algorithm>
#include <set>

#include "cache/paged_kv_cache.h"
#include "cache/recurrent_state.h"
#include "cache/ring_kv_cache.h"
#include "model/model.h"
#include "model/plan.h"
#include "ops/linear_rows.h"
#include "ops/matmul.h"

namespace llm0 {

namespace {
// The cache kind a batch step needs for a layer kind. Throws llm0::Error naming the layer.
void check_batch_cache(LayerKind kind, LayerCache& c, int il) {
  const bool ok = kind == LayerKind::SlidingAttention  ? dynamic_cast<RingKvCache*>(&c) != nullptr
                  : kind == LayerKind::LinearAttention ? dynamic_cast<RecurrentState*>(&c) != nullptr
                                                       : dynamic_cast<PagedKvCache*>(&c) != nullptr;
  LLM0_CHECK(ok, "forward_batch: layer {} needs a {} cache", il,
             kind == LayerKind::SlidingAttention  ? "sliding-window (ring)"
             : kind == LayerKind::LinearAttention ? "recurrent-state"
                                                  : "paged KV");
}
}  // namespace

void Model::forward_batch(std::span<const BatchSeq> seqs, float* logits) {
  const int B = (int)seqs.size(), C = cfg_.hidden_size, V = cfg_.vocab_size;
  const int L = cfg_.num_hidden_layers;
  LLM0_CHECK(B > 0, "forward_batch needs at least one sequence");
  // Every check before anything is appended.
  long N = 0;
  int max_pos = 0;
  std::set<const ModelCache*> seen;
  for (const BatchSeq& s : seqs) {
    LLM0_CHECK(s.n > 0 && s.cache && s.tokens, "forward_batch: a sequence without tokens");
    LLM0_CHECK(seen.insert(s.cache).second, "forward_batch: one cache appears twice");
    LLM0_CHECK(s.cache->num_layers() == L, "cache has {} layers, model {}", s.cache->num_layers(), L);
    for (int il = 0; il < L; ++il)
      check_batch_cache(cfg_.layer(il).kind, s.cache->layer(il), il);
    const int pos = s.cache->length();
    LLM0_CHECK((long)pos + s.n <= s.cache->capacity(), "context full: {} cached + {} new tokens "
               "exceed the cache capacity of {} tokens", pos, s.n, s.cache->capacity());
    for (int t = 0; t < s.n; ++t)
      LLM0_CHECK(s.tokens[t] >= 0 && s.tokens[t] < V, "token id {} is outside [0, vocab_size={})",
                 s.tokens[t], V);
    N += s.n, max_pos = std::max(max_pos, pos + s.n);
  }
  LLM0_CHECK(N <= (1L << 30), "forward_batch: {} tokens in one step", N);
  RowIndependentLinear fixed_order;
  InferScratch& s = *infer_;
  s.ensure(cfg_, (int)N, 0, 0);
  if (rope_) rope_->ensure(max_pos);
  s.tokens.resize((size_t)N), s.segments.resize((size_t)B);
  for (int b = 0, row = 0; b < B; row += seqs[(size_t)b].n, ++b) {
    const BatchSeq& q = seqs[(size_t)b];
    const int pos = q.cache->length();
    std::copy(q.tokens, q.tokens + q.n, s.tokens.begin() + row);
    for (int t = 0; t < q.n; ++t) s.positions[(size_t)(row + t)] = pos + t;
    s.segments[(size_t)b] = {row, q.n, pos, nullptr};
  }
  embed(s.tokens.data(), s.positions.data(), (int)N, s.x);
  for (int il = 0; il < L; ++il) {
    for (int b = 0; b < B; ++b)
      s.segments[(size_t)b].cache = &seqs[(size_t)b].cache->layer(il);
    blocks_[(size_t)il].forward_batch(s.x, (int)N, s.positions.data(), s.segments, s.block,
                                      counters_[(size_t)il]);
  }
  for (int b = 0; b < B; ++b) {  // each sequence's last row: final norm, then one lm_head product
    const BatchSegment& g = s.segments[(size_t)b];
    final_norm_.forward(s.lnf + (long)b * C, nullptr, nullptr, s.x + (long)(g.row0 + g.n - 1) * C, 1);
  }
  linear_forward(logits, s.lnf, head_w_, nullptr, B, C, V);
}

}  // namespace llm0
