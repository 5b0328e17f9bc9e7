// The ledger and the engine agree (DESIGN.md "The layer interface"): for the same config and
// length, the bytes the engine's cache really holds (float32, and bfloat16 with --kv-dtype bf16)
// equal what `llm0 kv` computes from the config.json with --dtype fp32 / bf16 --context L. Every
// kind at every length is in the kind table (tests/kinds/, test_kinds_ledger); here: the default
// preset at its full context, a Gated DeltaNet state by its closed form, the sliding rings'
// allocation, and `llm0 bench context` on a checkpoint.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/checkpoint.h"
#include "ledger/kv_ledger.h"
#include "model/infer_context.h"
#include "model/init.h"
#include "model_fixtures.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {
void expect_ledger_equals_engine(const ModelConfig& c, int L) {
  for (ElementType dtype : {ElementType::F32, ElementType::BF16}) {
  SCOPED_TRACE(element_type_name(dtype));
  Model m(c);
  init_weights(m, 1);
  m.set_kv_dtype(dtype);
  ModelCache cache = m.new_cache();
  InferContext ctx(m);
  std::vector<int> tokens((size_t)L);
  for (int t = 0; t < L; ++t) tokens[(size_t)t] = (t * 7) % c.vocab_size;
  std::vector<float> logits((size_t)c.vocab_size);
  m.forward_cached(tokens.data(), L, cache, ctx, logits.data(), /*last_only=*/true);
  KvOptions opt;
  opt.dtype = dtype, opt.context = L;
  const KvLedger k = kv_ledger(c.to_json(), opt);
  EXPECT_EQ(cache.bytes_in_use(), k.total_bytes_at_context) << "Hkv=" << c.num_key_value_heads;
  EXPECT_EQ(cache.bytes_in_use(), k.kv_bytes_per_token * (uint64_t)L + k.fixed_state_bytes);
  }
}
}  // namespace

// Gated DeltaNet: the ledger's recurrent state is nv · dk · dv float32 numbers per linear layer.
TEST(KvLedgerEngine, LinearStateBytesByTheirClosedForm) {
  const ModelConfig c = hybrid_config({1, 0}, true);
  const KvLedger k = kv_ledger(c.to_json(), KvOptions{});
  EXPECT_EQ(k.linear_state_bytes, 4u * 6 * 5 * 4) << "nv · dk · dv · 4 B";
}

TEST(KvLedgerEngine, DefaultPresetAtFullContext) {
  expect_ledger_equals_engine(ModelConfig::from_file(LLM0_SOURCE_DIR "/configs/llm0-small.json"), 256);
}

// Sliding layers: at every length the engine's ring buffers hold min(n, W) positions, exactly the
// ledger's count, and the bytes stop growing once n >= W (decode one token at a time to 3W).
TEST(KvLedgerEngine, SlidingRingBytesEqualTheLedgerAtEveryLength) {
  const ModelConfig c = sliding_config(6, {1, 0, 1}, true);
  for (ElementType dtype : {ElementType::F32, ElementType::BF16}) {
  SCOPED_TRACE(element_type_name(dtype));
  Model m(c);
  init_weights(m, 1);
  m.set_kv_dtype(dtype);
  ModelCache cache = m.new_cache();
  InferContext ctx(m);
  std::vector<float> logits((size_t)c.vocab_size);
  size_t at_w = 0;
  for (int n = 1; n <= 18; ++n) {
    const int tok = (n * 5) % c.vocab_size;
    m.forward_cached(&tok, 1, cache, ctx, logits.data(), true);
    KvOptions opt;
    opt.dtype = dtype, opt.context = n;
    const KvLedger k = kv_ledger(c.to_json(), opt);
    EXPECT_EQ(cache.bytes_in_use(), k.kv_bytes_at_context) << "n=" << n;
    const size_t ring = cache.layer(0).bytes_in_use();
    if (n == 6) at_w = ring;
    if (n >= 6) {
      EXPECT_EQ(ring, at_w) << "ring bytes grow past W at n=" << n;
    }
    // W × Hkv × 2D × bytes per number
    EXPECT_EQ(cache.layer(0).bytes_allocated(), (size_t)6 * 2 * 24 * 2 * element_bytes(dtype, 1));
  }
  }
}

// `llm0 bench context --model DIR` (a checkpoint, as exported for llama-bench) reports, after n
// prefilled and G decoded tokens, the cache bytes of the ledger at n + G: for the qwen3_next
// hybrid with experts (1 full + 2 linear layers), F32 cache.
TEST(KvLedgerEngine, BenchContextOnACheckpointReportsTheLedgersBytes) {
  const ModelConfig c = hybrid_moe_config(4);
  Model m(c);
  init_weights(m, 3);
  const std::string dir = test::fresh_temp_path("kv_ledger_engine", "bench_ctx");
  save_checkpoint(m, dir, "");
  FILE* p = popen((std::string(LLM0_CLI) + " bench context --model " + dir +
                   " --contexts 3,9 --decode-tokens 2 --threads 1 --json").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j.at("config").get<std::string>(), dir);
  ASSERT_EQ(j.at("contexts").size(), 2u);
  for (const auto& row : j.at("contexts")) {
    KvOptions opt;
    opt.dtype = ElementType::F32, opt.context = row.at("context").get<int>() + 2;
    EXPECT_EQ(row.at("cache_bytes_at_end").get<uint64_t>(),
              kv_ledger(c.to_json(), opt).total_bytes_at_context) << row.dump();
  }
}
