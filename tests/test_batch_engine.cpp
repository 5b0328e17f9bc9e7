// BatchEngine (serve/batch_engine.h): many sequences through one model, a step at a time.
// References: the one-page cache (Model::forward_cached on one sequence alone) for the logits,
// the KV ledger (`llm0 kv`) for the bytes, and the contract's page arithmetic for the pool.
// Shapes: tiny_config (every dimension different), prompts not a multiple of the page size.
// Every kind's batch = alone, chunked = whole, serving = full forward and engine bytes = ledger
// are in the kind table's suites (tests/kinds/, test_kinds_batch, _cached, _ledger); here: the
// pool, the prefix cache, the counters and the paged cache under forward_cached.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "core/check.h"
#include "ledger/kv_ledger.h"
#include "model_fixtures.h"
#include "cache/page_pool.h"
#include "model/infer_context.h"
#include "cache/paged_kv_cache.h"
#include "engine_schedule.h"
#include "serve/batch_engine.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

/// Logits [V] of the last token of `tokens`, run alone through the model's own cache (one page
/// per layer, not the engine's pool) in a context of its own; with `fixed_order` (ops/linear_rows.h)
/// the linear maps and the delta rule run the engine's fixed-order kernels, so the logits are the
/// engine's bitwise while the caches and the context are not the engine's.
std::vector<float> alone_logits(Model& m, const std::vector<int>& tokens, bool fixed_order = false) {
  ModelCache c = m.new_cache();
  InferContext ctx(m);
  ctx.set_fixed_order(fixed_order);
  std::vector<float> out((size_t)m.config().vocab_size);
  m.forward_cached(tokens.data(), (int)tokens.size(), c, ctx, out.data(), /*last_only=*/true);
  return out;
}

float max_abs_diff(const float* a, const float* b, int n) {
  float d = 0;
  for (int i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

BatchEngineOptions pool(int page_size, int pages) {
  BatchEngineOptions o;
  o.page_size = page_size, o.num_pages = pages;
  return o;
}

struct KindRow {
  const char* name;
  ModelConfig cfg;
};

}  // namespace

// Model::forward_cached through a ModelCache of PagedKvCache layers over a shared pool (pages of 5,
// in reverse order) equals the model's own one-page cache, chunk by chunk: bitwise, both in the
// engine's fixed order (the context's default).
TEST(BatchEngine, ForwardCachedThroughPagedCachesEqualsContiguous) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true));
  random_weights(m, 17);
  const int V = m.config().vocab_size, L = m.config().num_hidden_layers;
  PagePool pool(9, 5, L, m.config().num_key_value_heads * m.config().head_dim, ElementType::F32);
  auto table = std::make_shared<PageTable>();
  for (int i = 0; i < 6; ++i) table->pages.push_back(pool.allocate());
  std::reverse(table->pages.begin(), table->pages.end());
  ModelCache paged;
  for (int il = 0; il < L; ++il) paged.add(std::make_unique<PagedKvCache>(pool, table, il));
  ModelCache flat = m.new_cache();
  const std::vector<int> t = random_tokens(27, V, 19);
  std::vector<float> a((size_t)V), b((size_t)V);
  InferContext ctx(m);
  for (auto [at, n] : {std::pair{0, 11}, std::pair{11, 1}, std::pair{12, 15}}) {
    m.forward_cached(t.data() + at, n, paged, ctx, a.data(), true);
    m.forward_cached(t.data() + at, n, flat, ctx, b.data(), true);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * V), 0)
        << "after " << at + n << ": max |Δ| " << max_abs_diff(a.data(), b.data(), V);
  }
  EXPECT_EQ(paged.bytes_in_use(), flat.bytes_in_use());
  EXPECT_THROW(m.forward_cached(t.data(), 4, paged, ctx, a.data(), true), Error);  // 27 + 4 > 30
}

// Pages: ceil(reserve / page_size) per sequence at open, returned at close; open() refuses
// (nullopt, nothing changed) when the pool cannot cover the reservation.
TEST(BatchEngine, PagesAreReservedAndReturned) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 7);
  BatchEngine e(m, pool(16, 5));
  EXPECT_EQ(e.pages_total(), 5);
  EXPECT_EQ(e.page_size(), 16);
  const SeqId a = *e.open(random_tokens(20, 61, 1), 33);  // 3 pages
  EXPECT_EQ(e.pages_in_use(), 3);
  EXPECT_FALSE(e.open(random_tokens(4, 61, 2), 40).has_value());  // 3 more: too many
  EXPECT_EQ(e.pages_in_use(), 3);
  const SeqId b = *e.open(random_tokens(4, 61, 2), 32);  // exactly 2
  EXPECT_EQ(e.pages_in_use(), 5);
  e.close(a);
  EXPECT_EQ(e.pages_in_use(), 2);
  e.close(b);
  EXPECT_EQ(e.pages_in_use(), 0);
  EXPECT_THROW(e.length(a), Error);
}

TEST(BatchEngine, BadStepsThrowAndAppendNothing) {
  Model m(tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false));
  random_weights(m, 13);
  BatchEngine e(m, pool(16, 8));
  const std::vector<int> a = random_tokens(7, 61, 1);
  const SeqId ia = *e.open(a, 9);
  std::vector<float> logits(2 * 61);
  auto throws = [&](const std::vector<BatchEngine::Work>& w, const std::string& text) {
    try {
      e.step(w, logits.data());
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
    }
    EXPECT_EQ(e.length(ia), 0);
  };
  throws({{ia, a.data(), 7}, {ia + 100, a.data(), 1}}, "unknown sequence");
  throws({{ia, a.data(), 3}, {ia, a.data() + 3, 1}}, "twice");
  const std::vector<int> ten = random_tokens(10, 61, 3);
  throws({{ia, ten.data(), 10}}, "reservation of 9");
  const std::vector<int> bad = {3, 61};
  throws({{ia, bad.data(), 2}}, "vocab_size");
  EXPECT_THROW(e.open({}, 4), Error);
  EXPECT_THROW(e.open(a, 6), Error);     // reservation < prompt
  EXPECT_THROW(e.open(a, 65), Error);    // > max_position_embeddings
  EXPECT_THROW(e.open({0, -1}, 4), Error);
}

TEST(BatchEngine, RefusesSizesOutOfRange) {
  Model m(tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false));
  EXPECT_THROW(BatchEngine(m, pool(0, 4)), Error);
  EXPECT_THROW(BatchEngine(m, BatchEngineOptions{16, 0, 0, true}), Error);
  BatchEngineOptions bytes{4, 0, 0, true};
  // 4 tokens × 2 layers × 4 KV heads × 2 × 24 numbers × 4 bytes = 6144 bytes per page.
  bytes.kv_memory_bytes = 6144 * 3 + 100;
  EXPECT_EQ(BatchEngine(m, bytes).pages_total(), 3);
  // MLA: a page holds the latent rows, 4 tokens × 2 layers × (r 11 + dr 4) × 4 bytes = 480.
  Model mla(mla_model_config(0));
  bytes.kv_memory_bytes = 480 * 5 + 479;
  EXPECT_EQ(BatchEngine(mla, bytes).pages_total(), 5);
}

// Prefix cache: the second prompt's shared pages skip their prefill, and its logits are bitwise
// those of the run without the cache (K/V pages and MLA's latent pages).
TEST(BatchEngine, PrefixCacheHitEqualsMissBitwise) {
  for (const KindRow& kind : {KindRow{"GQA", tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false)},
                              KindRow{"MLA latent pages", mla_model_config(9)}}) {
  SCOPED_TRACE(kind.name);
  Model m(kind.cfg);
  random_weights(m, 41);
  const int V = m.config().vocab_size;
  std::vector<int> a = random_tokens(30, V, 51), b = a;
  b.resize(22);  // 5.5 pages of 4 shared with a
  for (int t : random_tokens(9, V, 52)) b.push_back(t);
  std::vector<float> miss;
  {
    BatchEngineOptions o = pool(4, 32);
    o.prefix_cache = false;
    BatchEngine e(m, o);
    miss = run_schedule(m, {b}, {{31}}, e)[0];
  }
  BatchEngine e(m, pool(4, 32));
  EXPECT_TRUE(e.prefix_caching());
  run_schedule(m, {a}, {{30}}, e);
  EXPECT_EQ(e.prefix_hit_tokens(), 0u);
  const SeqId ib = *e.open(b, 31);
  EXPECT_EQ(e.cached_tokens(ib), 20);  // 5 full pages; the 6th differs
  EXPECT_EQ(e.prefix_hit_tokens(), 20u);
  std::vector<float> hit(V);
  e.step({{ib, b.data() + 20, 11}}, hit.data());
  EXPECT_EQ(std::memcmp(hit.data(), miss.data(), sizeof(float) * V), 0);
  EXPECT_EQ(std::memcmp(hit.data(), alone_logits(m, b, /*fixed_order=*/true).data(),
                        sizeof(float) * V), 0);  // the same-order reference (see above)
  }
}

// Two prompts sharing 2.5 pages share exactly 2 pages (reference count 2); the third page is
// each one's own (copy-on-write at the first differing page); close() returns every page;
// bytes_in_use() counts shared pages once.
TEST(BatchEngine, PrefixPagesAreSharedAndReturned) {
  Model m(tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 43);
  const int V = m.config().vocab_size;
  const uint64_t per_token = kv_ledger(m.config().to_json(), [] {
    KvOptions o;
    o.dtype = ElementType::F32;
    return o;
  }()).kv_bytes_per_token;
  std::vector<int> a = random_tokens(14, V, 61), b(a.begin(), a.begin() + 10);
  for (int t : random_tokens(5, V, 62)) b.push_back(t);
  BatchEngine e(m, pool(4, 10));
  std::vector<float> logits(2 * (size_t)V);
  const SeqId ia = *e.open(a, 16);  // 4 pages
  e.step({{ia, a.data(), 14}}, logits.data());
  const SeqId ib = *e.open(b, 15);  // shares 2, 2 fresh
  EXPECT_EQ(e.cached_tokens(ib), 8);
  const std::vector<int> pa = e.pages(ia), pb = e.pages(ib);
  ASSERT_EQ(pa.size(), 4u);
  ASSERT_EQ(pb.size(), 4u);
  EXPECT_EQ(pa[0], pb[0]);
  EXPECT_EQ(pa[1], pb[1]);
  EXPECT_NE(pa[2], pb[2]);
  EXPECT_EQ(e.page_refs(pa[0]), 2);
  EXPECT_EQ(e.page_refs(pa[1]), 2);
  EXPECT_EQ(e.page_refs(pa[2]), 1);
  EXPECT_EQ(e.page_refs(pb[2]), 1);
  EXPECT_THROW(e.page_refs(10), Error);
  EXPECT_EQ(e.pages_in_use(), 6);
  e.step({{ib, b.data() + 8, 7}}, logits.data());
  EXPECT_EQ(e.bytes_in_use(), per_token * (14 + 7));  // 8 shared positions once
  EXPECT_EQ(e.length(ib), 15);
  e.close(ia);
  EXPECT_EQ(e.page_refs(pa[0]), 1);
  EXPECT_EQ(e.pages_in_use(), 4);
  EXPECT_EQ(e.pages_cached(), 1);  // a's third page (full, registered), unreferenced now
  e.close(ib);
  EXPECT_EQ(e.pages_in_use(), 0);
  EXPECT_EQ(e.bytes_in_use(), 0u);
  EXPECT_EQ(e.pages_cached(), 4);  // the full pages stay cached: a's 3 and b's own third
}

// Eviction takes only unreferenced cached pages, least recently used first, and only when the
// free list is short; open() returns nullopt and changes nothing when even eviction cannot make
// room.
TEST(BatchEngine, EvictsOnlyUnreferencedCachedPages) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 47);
  const int V = m.config().vocab_size;
  BatchEngine e(m, pool(4, 6));
  std::vector<float> logits(V);
  const std::vector<int> a = random_tokens(9, V, 71), c = random_tokens(5, V, 72);
  const SeqId ia = *e.open(a, 9);  // 3 pages
  e.step({{ia, a.data(), 9}}, logits.data());
  e.close(ia);  // 2 full pages cached, the third freed
  EXPECT_EQ(e.pages_cached(), 2);
  EXPECT_EQ(e.pages_in_use(), 0);
  const SeqId ic = *e.open(c, 16);  // 4 pages: the 4 free ones, no eviction
  EXPECT_EQ(e.pages_cached(), 2);
  EXPECT_FALSE(e.open(c, 12).has_value());  // 3 pages > 0 free + 2 cached
  EXPECT_EQ(e.pages_cached(), 2);           // nothing changed
  EXPECT_EQ(e.pages_in_use(), 4);
  const std::vector<int> c3(c.begin(), c.begin() + 3);
  const SeqId id = *e.open(c3, 4);  // 1 page: evicts the least recent cached page (a's second)
  EXPECT_EQ(e.pages_cached(), 1);
  e.close(id);
  // a's first page is still cached: a prompt starting with it shares it.
  std::vector<int> a2(a.begin(), a.begin() + 4);
  a2.push_back(1);
  const SeqId i2 = *e.open(a2, 5);
  EXPECT_EQ(e.cached_tokens(i2), 4);
  e.close(i2), e.close(ic);
  EXPECT_EQ(e.pages_in_use(), 0);
}

// Counters stay honest in the batched path: K/V projected per token and layer, q·k scores of the
// visible pairs, bytes of the rows read.
TEST(BatchEngine, CountersCountTheBatchedWork) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 53);
  const int V = m.config().vocab_size, H = 4, L = 2;
  BatchEngine e(m, pool(16, 8));
  const std::vector<int> a = random_tokens(7, V, 81), b = random_tokens(3, V, 82);
  const SeqId ia = *e.open(a, 7), ib = *e.open(b, 3);
  e.context().reset_counters();
  std::vector<float> logits(2 * (size_t)V);
  e.step({{ia, a.data(), 7}, {ib, b.data(), 3}}, logits.data());
  const WorkCounters c = e.context().total_counters();
  EXPECT_EQ(c.kv_projected, (uint64_t)L * 10);
  EXPECT_EQ(c.qk_scores, (uint64_t)L * H * (28 + 6));  // Σ (t + 1): 1..7 and 1..3
  // Rows read: all 7 resp. 3 positions, Hkv 2 × (24 + 24) floats each.
  EXPECT_EQ(c.kv_bytes_read, (uint64_t)L * 10 * 2 * 48 * 4);
}

// A sequence's sliding windows (min(W, reserve) positions) and recurrent states take pages off
// the budget at open (ceil(state bytes / page bytes)), given back at close; open() returns
// nullopt, changing nothing, when they do not fit. The prefix cache is off for these models.
TEST(BatchEngine, StatesAreChargedAgainstThePageBudget) {
  {  // sliding W 5 on layers 0, 2 and full layer 1; pages of 4 tokens: 4 × 96 × 4 = 1536 bytes
    Model m(sliding_config(5, {1, 0, 1}, false));
    random_weights(m, 3);
    const int V = m.config().vocab_size;
    BatchEngine e(m, pool(4, 10));
    const std::vector<int> a = random_tokens(9, V, 1);
    // 5 table pages + 2 rings × 5 positions × 96 numbers × 4 bytes = 3840 bytes → 3 pages.
    const SeqId ia = *e.open(a, 20);
    EXPECT_EQ(e.pages_in_use(), 8);
    EXPECT_FALSE(e.open(random_tokens(3, V, 2), 3).has_value());  // 1 + ceil(2304 / 1536) = 3
    EXPECT_EQ(e.pages_in_use(), 8);
    const SeqId ib = *e.open(random_tokens(1, V, 2), 1);  // 1 + ceil(768 / 1536) = 2
    EXPECT_EQ(e.pages_in_use(), 10);
    std::vector<float> logits((size_t)V);
    e.step({{ia, a.data(), 9}}, logits.data());
    e.close(ia), e.close(ib);
    EXPECT_EQ(e.pages_in_use(), 0);
    EXPECT_EQ(e.pages_cached(), 0);  // nothing registered: no prefix cache with sliding layers
    EXPECT_FALSE(e.prefix_caching());
    const SeqId ic = *e.open(a, 10);  // the same prompt again: prefilled in full
    EXPECT_EQ(e.cached_tokens(ic), 0);
    EXPECT_EQ(e.prefix_hit_tokens(), 0u);
  }
  {  // every layer linear: no K/V pages; the budget unit is one sequence's state
    Model m(hybrid_config({1, 1}, false));
    random_weights(m, 4);
    BatchEngine e(m, pool(16, 3));
    const std::vector<int> p = random_tokens(7, m.config().vocab_size, 5);
    std::vector<SeqId> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(*e.open(p, 40));
    EXPECT_EQ(e.pages_in_use(), 3);
    EXPECT_FALSE(e.open(p, 8).has_value());
    for (SeqId id : ids) e.close(id);
    EXPECT_EQ(e.pages_in_use(), 0);
  }
}
