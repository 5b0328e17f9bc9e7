// Model::forward_cached: the one cached forward over N >= 1 sequences. See model.h.
// x [N, C] holds the new tokens of B sequences one after the other (sequence b's rows are
// [row0_b, row0_b + n_b)); everything but the sequence mixing is per token row, so it runs on all
// N rows at once; each mixer runs per sequence on that sequence's cache (Mixer::forward_cached:
// attention through its page table or window, MLA through its latent rows, Gated DeltaNet's
// convolution and delta rule on its state). The context's LinearKernel goes to every linear map
// (q/k/v/o, gate/up/down, experts, router, lm_head): with fixed_order their per-element order does
// not depend on N — the determinism contract of serve/batch_engine.h.
#include <algorithm>
#include <set>

#include "model/infer_context.h"
#include "model/model.h"
#include "model/plan.h"
#include "ops/matmul.h"

namespace llm0 {

void Model::forward_cached(std::span<const BatchSeq> seqs, InferContext& ctx, float* logits,
                           bool every_row) const {
  const int B = (int)seqs.size(), C = cfg_.hidden_size, V = cfg_.vocab_size;
  const int L = cfg_.num_hidden_layers;
  LLM0_CHECK(B > 0, "forward_cached needs at least one sequence");
  LLM0_CHECK(!ctx.fixed_order() || ctx.panels_version() == weights_version(), "this inference "
             "context's packed weights predate a change of the model's weights (a training step, "
             "a load or use_bf16_weights): make a new InferContext");
  // Every check before anything is appended.
  long N = 0;
  int max_pos = 0, max_capacity = 0;
  std::set<const ModelCache*> seen;
  for (const BatchSeq& s : seqs) {
    LLM0_CHECK(s.n > 0 && s.cache && s.tokens, "forward_cached needs at least one token per sequence");
    LLM0_CHECK(seen.insert(s.cache).second, "forward_cached: one cache appears twice");
    LLM0_CHECK(s.cache->num_layers() == L, "cache has {} layers, model {}", s.cache->num_layers(), L);
    for (int il = 0; il < L; ++il) {  // as cache_as words it
      const Mixer& mixer = *blocks_[(size_t)il].mixer;
      const CacheKind want = mixer.cache_spec().cache, got = s.cache->layer(il).kind();
      LLM0_CHECK(got == want, "layer {} ({}) needs a {} cache, got a {} cache", il,
                 mixer.kind_name(), cache_kind_name(want), cache_kind_name(got));
    }
    const int pos = s.cache->length();
    LLM0_CHECK((long)pos + s.n <= s.cache->capacity(),
               "context full: {} cached + {} new tokens exceed the cache capacity of {} tokens{}",
               pos, s.n, s.cache->capacity(), cfg_.sliding_window > 0 ? " (the position limit: "
               "sliding-window layers hold only their last tokens, but positions beyond "
               "max_position_embeddings were never trained)" : "");
    for (int t = 0; t < s.n; ++t)
      LLM0_CHECK(s.tokens[t] >= 0 && s.tokens[t] < V, "token id {} is outside [0, vocab_size={})",
                 s.tokens[t], V);
    N += s.n, max_pos = std::max(max_pos, pos + s.n);
    max_capacity = std::max(max_capacity, s.cache->capacity());
  }
  LLM0_CHECK(N <= (1L << 30), "forward_cached: {} tokens in one call", N);
  const InferOptions& opt = ctx.options();
  InferScratch& s = ctx.scratch();
  // Cached positions the mixers' scratch holds rows for (MLA's expanded form: the longest).
  int context = 0;
  for (const Block& b : blocks_) context = std::max(context, b.mixer->context_rows(opt, max_pos));
  s.ensure(cfg_, blocks_, (int)N, context, max_capacity);
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
    blocks_[(size_t)il].forward_cached(s.x, (int)N, s.positions.data(), s.segments,
                                       s.blocks[(size_t)il], opt, ctx.counters(il));
  }
  if (every_row) {  // [N, V]: every new row (forward --chunks, the lessons)
    final_norm_.forward(s.lnf, nullptr, nullptr, s.x, (int)N);
    return linear_forward(logits, s.lnf, head_w_, nullptr, (int)N, C, V, opt.linear);
  }
  for (int b = 0; b < B; ++b) {  // each sequence's last row: final norm, then one lm_head product
    const BatchSegment& g = s.segments[(size_t)b];
    final_norm_.forward(s.lnf + (long)b * C, nullptr, nullptr, s.x + (long)(g.row0 + g.n - 1) * C, 1);
  }
  linear_forward(logits, s.lnf, head_w_, nullptr, B, C, V, opt.linear);
}

}  // namespace llm0
