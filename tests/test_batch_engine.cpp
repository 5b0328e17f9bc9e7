// BatchEngine (serve/batch_engine.h): many sequences through one model, a step at a time.
// References: the contiguous cache (Model::forward_cached on one sequence alone) for the logits,
// the KV ledger (`llm0 kv`) for the bytes, and the contract's page arithmetic for the pool.
// Shapes: tiny_config (every dimension different), prompts not a multiple of the page size.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "core/check.h"
#include "ledger/kv_ledger.h"
#include "model_fixtures.h"
#include "cache/page_pool.h"
#include "ops/linear_rows.h"
#include "cache/paged_kv_cache.h"
#include "serve/batch_engine.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

/// Logits [V] of the last token of `tokens`, run alone through a contiguous cache; with
/// `fixed_order`, inside a RowIndependentLinear scope (ops/linear_rows.h): the linear maps, the
/// attention and the delta rule then run the engine's fixed-order kernels, so the logits are the
/// engine's bitwise while the caches (KvCache, RingKvCache via attend_sliding, RecurrentState,
/// LatentCache) and the layers' single-sequence code are not the engine's.
std::vector<float> alone_logits(Model& m, const std::vector<int>& tokens, bool fixed_order = false) {
  ModelCache c = m.new_cache();
  std::optional<RowIndependentLinear> scope;
  if (fixed_order) scope.emplace();
  std::vector<float> out((size_t)m.config().vocab_size);
  m.forward_cached(tokens.data(), (int)tokens.size(), c, out.data(), /*last_only=*/true);
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

/// The model kinds the engine pages: MHA / GQA / MQA, QK-norm with partial RoPE, GPT-2 (learned
/// positions, LayerNorm, biases, tied embeddings), gated attention output, sinks, MoE, and MLA
/// (latent rows in the pages; with and without q compression, with DeepSeek-V3 experts).
struct KindRow {
  const char* name;
  ModelConfig cfg;
};
std::vector<KindRow> pageable_kinds() {
  ModelConfig sinks = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  sinks.attention_sinks = true;
  return {{"GQA qk-norm partial-rope", tiny_config(Heads::GQA, PositionKind::Rope, 0.5, true)},
          {"MHA", tiny_config(Heads::MHA, PositionKind::Rope, 1.0, false)},
          {"MQA", tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false)},
          {"gpt2", gpt2_config()},
          {"gated attention", hybrid_config({0, 0}, false, 4, /*gate=*/true)},
          {"sinks", sinks},
          {"qwen2_moe", moe_model_config("qwen2_moe")},
          {"MLA", mla_model_config(0)},
          {"MLA q_lora", mla_model_config(9)},
          {"deepseek_v3 MLA + MoE", moe_model_config("deepseek_v3")}};
}

/// The kinds whose layers keep a per-sequence state outside the pages: sliding windows (W 5 or
/// 6, shorter than the prompts; with sinks; every layer sliding) and Gated DeltaNet hybrids
/// (Qwen3-Next flavour, llama flavour, every layer linear, MoE).
std::vector<KindRow> state_kinds() {
  return {{"sliding + sinks", sliding_config(5, {1, 0, 1}, true)},
          {"sliding qwen2", sliding_config(6, {0, 1}, false, true)},
          {"all sliding", sliding_config(5, {1, 1}, false)},
          {"hybrid qwen3_next", hybrid_config({1, 0, 1}, true)},
          {"hybrid llama", hybrid_config({0, 1}, false)},
          {"all linear", hybrid_config({1, 1}, false)},
          {"hybrid moe", hybrid_moe_config(6)}};
}

std::vector<KindRow> served_kinds() {
  std::vector<KindRow> k = pageable_kinds();
  for (KindRow& r : state_kinds()) k.push_back(r);
  return k;
}

}  // namespace

// Three sequences of different lengths, prefilled in chunks and decoded together: each step's
// logits equal, bitwise, the contiguous cache's for that sequence's tokens so far run alone in
// the engine's fixed order, for pages of 1 and 16 positions (prompts of 29, 17, 5: not multiples
// of 16), F32 and BF16 caches, every kind (sliding windows of 5–6 and Gated DeltaNet states too).
//
// Why exact, and not a tolerance: with a BF16 cache any float32 difference before the rounding
// (another kernel's summation order) can round a K/V number to the neighbouring BF16 value, a
// step of one BF16 ulp (up to 2⁻⁷ of the number), which no first-order float32 bound covers, and
// a MoE router fed the moved numbers may pick another expert: no bound derived from rounding
// errors holds for every BLAS core (1e-3, measured on one CPU, failed at 1.06e-3 and 3.48e-3
// under OpenBLAS's Prescott kernels). So the reference computes the same numbers in the same
// order (alone_logits with fixed_order: linear_rows, the paged attention kernel over the
// contiguous rows as one page, MLA's absorbed loops, the recurrent delta rule) and rounds them
// the same way; no BLAS call remains on either side, so every bit must agree on any CPU and
// OpenBLAS core. What differs, and is under test: the page tables (pages of 1 and 16, three
// sequences interleaved in one pool), the batch rows, the chunks (11 + 18 vs one prefill), the
// ring and state bookkeeping across steps, and the caches' BF16 storage. The kernels themselves
// are checked against double references in their own tests (test_paged_kv_cache.cpp
// PagedAttention, test_linear_rows.cpp, test_ops_gated_delta.cpp), and the default (sgemm)
// cached path against the full forward (test_model_cache.cpp).
TEST(BatchEngine, StepLogitsEqualTheContiguousCache) {
  for (const KindRow& kind : served_kinds())
  for (CacheDtype dt : {CacheDtype::F32, CacheDtype::BF16})
    for (int page : {1, 16}) {
      SCOPED_TRACE(std::string(kind.name) + " " + cache_dtype_name(dt) + " page " + std::to_string(page));
      Model m(kind.cfg);
      random_weights(m, 3);
      m.set_kv_dtype(dt);
      const int V = m.config().vocab_size;
      BatchEngine e(m, pool(page, 64 / page * 4));
      std::vector<std::vector<int>> seqs = {random_tokens(29, V, 1), random_tokens(17, V, 2),
                                            random_tokens(5, V, 3)};
      std::vector<SeqId> ids;
      for (auto& s : seqs) ids.push_back(*e.open(s, (int)s.size() + 6));
      // Step 1: prefix chunks of 11, 17 (all), 5 (all); step 2: the rest of seq 0 (18) + decodes.
      std::vector<int> done = {0, 0, 0};
      auto run = [&](std::vector<int> n) {
        std::vector<BatchEngine::Work> w;
        for (size_t i = 0; i < n.size(); ++i)
          if (n[i] > 0) w.push_back({ids[i], seqs[i].data() + done[i], n[i]});
        std::vector<float> logits(w.size() * (size_t)V);
        e.step(w, logits.data());
        size_t k = 0;
        for (size_t i = 0; i < n.size(); ++i) {
          if (n[i] == 0) continue;
          done[i] += n[i];
          const std::vector<int> prefix(seqs[i].begin(), seqs[i].begin() + done[i]);
          const std::vector<float> want = alone_logits(m, prefix, /*fixed_order=*/true);
          EXPECT_EQ(std::memcmp(logits.data() + k * V, want.data(), sizeof(float) * V), 0)
              << "sequence " << i << " at " << done[i] << ": max |Δ| "
              << max_abs_diff(logits.data() + k * V, want.data(), V);
          EXPECT_EQ(e.length(ids[i]), done[i]);
          ++k;
        }
      };
      run({11, 17, 5});
      run({18, 0, 0});
      for (size_t i = 0; i < seqs.size(); ++i)  // each sequence decodes 3 more tokens
        for (int t = 0; t < 3; ++t) seqs[i].push_back((int)((7 * i + 5 * t + 1) % V));
      for (int t = 0; t < 3; ++t) run({1, 1, 1});
    }
}

// Model::forward_cached through a ModelCache of PagedKvCache layers (the one-sequence form of the
// batched path) equals the contiguous cache, chunk by chunk: bitwise, both in the engine's fixed
// order (a RowIndependentLinear scope), as in StepLogitsEqualTheContiguousCache.
TEST(BatchEngine, ForwardCachedThroughPagedCachesEqualsContiguous) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true));
  random_weights(m, 17);
  const int V = m.config().vocab_size, L = m.config().num_hidden_layers;
  PagePool pool(9, 5, L, m.config().num_key_value_heads * m.config().head_dim, CacheDtype::F32);
  auto table = std::make_shared<PageTable>();
  for (int i = 0; i < 6; ++i) table->pages.push_back(pool.allocate());
  std::reverse(table->pages.begin(), table->pages.end());
  ModelCache paged;
  for (int il = 0; il < L; ++il) paged.add(std::make_unique<PagedKvCache>(pool, table, il));
  ModelCache flat = m.new_cache();
  const std::vector<int> t = random_tokens(27, V, 19);
  std::vector<float> a((size_t)V), b((size_t)V);
  RowIndependentLinear fixed_order;
  for (auto [at, n] : {std::pair{0, 11}, std::pair{11, 1}, std::pair{12, 15}}) {
    m.forward_cached(t.data() + at, n, paged, a.data(), true);
    m.forward_cached(t.data() + at, n, flat, b.data(), true);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * V), 0)
        << "after " << at + n << ": max |Δ| " << max_abs_diff(a.data(), b.data(), V);
  }
  EXPECT_EQ(paged.bytes_in_use(), flat.bytes_in_use());
  EXPECT_THROW(m.forward_cached(t.data(), 4, paged, a.data(), true), Error);  // 27 + 4 > 30
}

// A sequence's logits do not depend on which others share the step.
TEST(BatchEngine, LogitsDoNotDependOnTheBatchPartners) {
  Model m(tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false));
  random_weights(m, 5);
  const int V = m.config().vocab_size;
  const std::vector<int> a = random_tokens(23, V, 11), b = random_tokens(9, V, 12);
  auto run = [&](bool with_partner) {
    BatchEngine e(m, pool(16, 8));
    const SeqId ia = *e.open(a, 30);
    std::vector<BatchEngine::Work> w = {{ia, a.data(), (int)a.size()}};
    if (with_partner) w.push_back({*e.open(b, 20), b.data(), (int)b.size()});
    std::vector<float> logits(w.size() * (size_t)V);
    e.step(w, logits.data());
    return std::vector<float>(logits.begin(), logits.begin() + V);
  };
  const std::vector<float> alone = run(false), shared = run(true);
  EXPECT_EQ(std::memcmp(alone.data(), shared.data(), sizeof(float) * (size_t)V), 0);
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

// bytes_in_use() is the ledger's bytes per token × tokens held (F32 and BF16 caches; GQA K/V
// and MLA's latent rows, kv_lora_rank + qk_rope_head_dim per token and layer).
TEST(BatchEngine, BytesInUseEqualTheLedger) {
  for (const ModelConfig& cfg : {tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false),
                                 mla_model_config(9)})
  for (auto [dt, kd] : {std::pair{CacheDtype::F32, KvDtype::kFp32},
                        std::pair{CacheDtype::BF16, KvDtype::kBf16}}) {
    Model m(cfg);
    random_weights(m, 9);
    m.set_kv_dtype(dt);
    KvOptions opt;
    opt.dtype = kd;
    const uint64_t per_token = kv_ledger(m.config().to_json(), opt).kv_bytes_per_token;
    BatchEngine e(m, pool(4, 32));
    const std::vector<int> a = random_tokens(13, 61, 1), b = random_tokens(6, 61, 2);
    const SeqId ia = *e.open(a, 20), ib = *e.open(b, 10);
    EXPECT_EQ(e.bytes_in_use(), 0u);
    std::vector<float> logits(2 * 61);
    e.step({{ia, a.data(), 13}, {ib, b.data(), 4}}, logits.data());
    EXPECT_EQ(e.bytes_in_use(), per_token * 17);
    e.close(ia);
    EXPECT_EQ(e.bytes_in_use(), per_token * 4);
  }
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

namespace {

/// Runs `seqs` through one engine in steps: step k gives sequence i the next chunks[i][k]
/// tokens (0: not in that step); returns every sequence's logits after each of its works, in
/// order (the last token's [V] each time).
std::vector<std::vector<float>> run_schedule(Model& m, const std::vector<std::vector<int>>& seqs,
                                             const std::vector<std::vector<int>>& chunks,
                                             BatchEngine& e) {
  const int V = m.config().vocab_size;
  std::vector<SeqId> ids;
  for (const auto& s : seqs) ids.push_back(*e.open(s, (int)s.size()));
  std::vector<int> done(seqs.size(), 0);
  for (size_t i = 0; i < seqs.size(); ++i) done[i] = e.cached_tokens(ids[i]);
  std::vector<std::vector<float>> out(seqs.size());
  const size_t steps = chunks[0].size();
  for (size_t k = 0; k < steps; ++k) {
    std::vector<BatchEngine::Work> w;
    std::vector<size_t> who;
    for (size_t i = 0; i < seqs.size(); ++i) {
      const int n = std::min(chunks[i][k], (int)seqs[i].size() - done[i]);
      if (n <= 0) continue;
      w.push_back({ids[i], seqs[i].data() + done[i], n});
      who.push_back(i);
      done[i] += n;
    }
    std::vector<float> logits(w.size() * (size_t)V);
    e.step(w, logits.data());
    for (size_t j = 0; j < who.size(); ++j)
      out[who[j]].insert(out[who[j]].end(), logits.begin() + (long)j * V,
                         logits.begin() + (long)(j + 1) * V);
  }
  for (SeqId id : ids) e.close(id);
  return out;
}

}  // namespace

// The determinism contract: a sequence's logits are bitwise the same (memcmp) when it runs alone
// (prompt in one chunk, then 3 decode steps) and when its prompt is chunked 1/3/5/7/.. and its
// decodes share steps with other sequences' prefill chunks and decodes, with different partners
// — F32 and BF16 weights and caches, MoE rows, sliding windows shorter than the prompts and
// Gated DeltaNet states too — on 1 and 2 OpenMP threads.
TEST(BatchEngine, LogitsAreBitwiseIndependentOfPartnersAndChunking) {
  struct Row {
    const char* name;
    ModelConfig cfg;
    bool bf16;
  };
  const Row rows[] = {{"GQA qk-norm partial rope f32", tiny_config(Heads::GQA, PositionKind::Rope, 0.5, true), false},
                      {"MHA gpt2 bf16", gpt2_config(), true},
                      {"qwen3_moe f32", moe_model_config("qwen3_moe"), false},
                      {"sliding W5 + sinks f32", sliding_config(5, {1, 0, 1}, true), false},
                      {"sliding W6 bf16", sliding_config(6, {0, 1}, false, true), true},
                      {"hybrid qwen3_next f32", hybrid_config({1, 0, 1}, true), false},
                      {"hybrid llama bf16", hybrid_config({0, 1}, false), true},
                      {"hybrid moe f32", hybrid_moe_config(6), false},
                      {"MLA q_lora f32", mla_model_config(9), false},
                      {"deepseek_v2 MLA + MoE bf16", moe_model_config("deepseek_v2"), true}};
  const int threads = omp_get_max_threads();
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    Model m(r.cfg);
    random_weights(m, 21);
    if (r.bf16) m.use_bf16_weights(), m.set_kv_dtype(CacheDtype::BF16);
    const int V = m.config().vocab_size;
    const std::vector<int> a = random_tokens(37, V, 31), b = random_tokens(12, V, 32),
                           c = random_tokens(25, V, 33);
    BatchEngineOptions o = pool(4, 64);
    o.prefix_cache = false;
    // The logits after each of the last `k` works of a sequence: [k, V].
    auto tail = [&](const std::vector<float>& l, int k) {
      return std::vector<float>(l.end() - (long)k * V, l.end());
    };
    auto alone = [&](const std::vector<int>& t) {  // prompt, then 3 decodes
      BatchEngine e(m, o);
      const int P = (int)t.size() - 3;
      return tail(run_schedule(m, {t}, {{P, 1, 1, 1}}, e)[0], 4);
    };
    omp_set_num_threads(1);  // alone on 1 thread, mixed on 2, then 1
    const std::vector<float> a1 = alone(a), b1 = alone(b), c1 = alone(c);
    omp_set_num_threads(2);
    auto same = [&](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
      ASSERT_EQ(x.size(), y.size()) << what;
      EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(float) * x.size()), 0) << what;
    };
    {  // a chunked 1, 3, 5, 7, 18 then decodes; b and c prefill and decode around it
      BatchEngine e(m, o);
      const auto out = run_schedule(m, {a, b, c}, {{1, 3, 5, 7, 18, 1, 1, 1, 0},
                                                   {9, 0, 0, 1, 0, 1, 0, 1, 0},
                                                   {2, 9, 1, 10, 1, 0, 1, 0, 1}}, e);
      same(tail(out[0], 4), a1, "a with b, c");
      same(tail(out[1], 4), b1, "b with a, c");
      same(tail(out[2], 4), c1, "c with a, b");
    }
    omp_set_num_threads(1);
    {  // other partners, other chunks
      BatchEngine e(m, o);
      const auto out = run_schedule(m, {c, a}, {{22, 0, 1, 1, 1, 0}, {16, 16, 2, 1, 1, 1}}, e);
      same(tail(out[0], 4), c1, "c with a");
      same(tail(out[1], 4), a1, "a with c");
    }
  }
  omp_set_num_threads(threads);
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
    o.dtype = KvDtype::kFp32;
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
  m.reset_counters();
  std::vector<float> logits(2 * (size_t)V);
  e.step({{ia, a.data(), 7}, {ib, b.data(), 3}}, logits.data());
  const WorkCounters c = m.total_counters();
  EXPECT_EQ(c.kv_projected, (uint64_t)L * 10);
  EXPECT_EQ(c.qk_scores, (uint64_t)L * H * (28 + 6));  // Σ (t + 1): 1..7 and 1..3
  // Rows read: all 7 resp. 3 positions, Hkv 2 × (24 + 24) floats each.
  EXPECT_EQ(c.kv_bytes_read, (uint64_t)L * 10 * 2 * 48 * 4);
}

// Sliding windows and recurrent states: bytes_in_use() is the ledger at each sequence's length
// (`llm0 kv --context T`: min(T, W) positions per sliding layer, the fixed state per linear layer,
// T per full layer), F32 and BF16, summed over open sequences; 0 after every close.
TEST(BatchEngine, StateBytesInUseEqualTheLedger) {
  for (const KindRow& kind : state_kinds())
    for (auto [dt, kd] : {std::pair{CacheDtype::F32, KvDtype::kFp32},
                          std::pair{CacheDtype::BF16, KvDtype::kBf16}}) {
      SCOPED_TRACE(std::string(kind.name) + " " + cache_dtype_name(dt));
      Model m(kind.cfg);
      random_weights(m, 9);
      m.set_kv_dtype(dt);
      auto ledger = [&](int T) {
        KvOptions opt;
        opt.dtype = kd, opt.context = T;
        return kv_ledger(m.config().to_json(), opt).total_bytes_at_context;
      };
      const int V = m.config().vocab_size;
      BatchEngine e(m, pool(4, 64));
      const std::vector<int> a = random_tokens(13, V, 1), b = random_tokens(6, V, 2);
      const SeqId ia = *e.open(a, 20), ib = *e.open(b, 10);
      EXPECT_EQ(e.bytes_in_use(), 2 * ledger(0));
      std::vector<float> logits(2 * (size_t)V);
      e.step({{ia, a.data(), 13}, {ib, b.data(), 4}}, logits.data());
      EXPECT_EQ(e.bytes_in_use(), ledger(13) + ledger(4));
      e.step({{ib, b.data() + 4, 2}}, logits.data());
      EXPECT_EQ(e.bytes_in_use(), ledger(13) + ledger(6));
      e.close(ia);
      EXPECT_EQ(e.bytes_in_use(), ledger(6));
      e.close(ib);
      EXPECT_EQ(e.bytes_in_use(), 0u);
      EXPECT_EQ(e.pages_in_use(), 0);
    }
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
