// Bytes = ledger for every row of the kind table (DESIGN.md "The layer interface": a model's cache
// holds exactly what `llm0 kv` computes for the same config and length): the ledger reads the
// row's config.json as written (src/ledger, its own parser), the engine's caches report what they
// hold — Model::new_cache at every length from 1 to T (a prefill of 3, then single tokens: sliding
// rings stop growing at W, recurrent states are fixed), and the serving engine's pages, rings and
// states for two sequences of different lengths (and after one closes) — float32 and BF16 caches.
#include <gtest/gtest.h>

#include <vector>

#include "kinds/kind_table.h"
#include "ledger/kv_ledger.h"
#include "model/infer_context.h"
#include "serve/batch_engine.h"

using namespace llm0;
using namespace llm0::kinds;
using llm0::testing_fixtures::random_tokens;

namespace {

constexpr ElementType kDtypes[] = {ElementType::F32, ElementType::BF16};

uint64_t ledger_bytes(const KindRow& r, ElementType dtype, int length) {
  KvOptions opt;
  opt.dtype = dtype, opt.context = length;
  return kv_ledger(r.json, opt).total_bytes_at_context;
}

class KindLedger : public ::testing::TestWithParam<KindRow> {};

}  // namespace

TEST_P(KindLedger, CacheBytesEqualTheLedgerAtEveryLength) {
  const KindRow& r = GetParam();
  const int T = 23, V = r.config.vocab_size;
  const std::vector<int> tokens = random_tokens(T, V, 5);
  for (ElementType dt : kDtypes) {
    SCOPED_TRACE(element_type_name(dt));
    Model m(r.config);
    prepare(m, r, 1);
    m.set_kv_dtype(dt);
    ModelCache cache = m.new_cache();
    InferContext ctx(m);
    EXPECT_EQ(cache.bytes_in_use(), ledger_bytes(r, dt, 0)) << "empty cache";
    std::vector<float> z((size_t)V);
    for (int n = 3, pos = 0; pos < T; pos += n, n = 1) {
      m.forward_cached(tokens.data() + pos, n, cache, ctx, z.data(), /*last_only=*/true);
      EXPECT_EQ(cache.bytes_in_use(), ledger_bytes(r, dt, pos + n)) << "length " << pos + n;
    }
  }
}

// Two sequences of 17 and 6 tokens in one engine: the sum of the ledger at each length; after
// the first closes, the second's alone.
TEST_P(KindLedger, EngineBytesEqualTheLedger) {
  const KindRow& r = GetParam();
  const int V = r.config.vocab_size;
  const std::vector<int> a = random_tokens(17, V, 1), b = random_tokens(6, V, 2);
  for (ElementType dt : kDtypes) {
    SCOPED_TRACE(element_type_name(dt));
    Model m(r.config);
    prepare(m, r, 9);
    m.set_kv_dtype(dt);
    BatchEngineOptions o;
    o.page_size = 4, o.num_pages = 64, o.prefix_cache = false;
    BatchEngine e(m, o);
    const SeqId ia = *e.open(a, 20), ib = *e.open(b, 10);
    std::vector<float> z(2 * (size_t)V);
    e.step({{ia, a.data(), 13}, {ib, b.data(), 4}}, z.data());
    e.step({{ia, a.data() + 13, 4}, {ib, b.data() + 4, 2}}, z.data());
    EXPECT_EQ(e.bytes_in_use(), ledger_bytes(r, dt, 17) + ledger_bytes(r, dt, 6));
    e.close(ia);
    EXPECT_EQ(e.bytes_in_use(), ledger_bytes(r, dt, 6));
    e.close(ib);
    EXPECT_EQ(e.bytes_in_use(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindLedger, every_kind(), row_name);
