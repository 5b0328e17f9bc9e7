// The serving forward's determinism contract (serve/batch_engine.h) for every row of the kind
// table, bitwise (memcmp): a prompt prefilled in chunks of 1, 3, 5, 7, ... gives the logits of
// the prompt prefilled whole (chunked = whole), and N sequences sharing steps give the logits of
// each sequence run alone (batch of N = N alone) — float32 and BF16 weights and caches, pages of 1
// and 4 positions, alone on the suite's OpenMP threads (1 in `make test`) and together on 2
// (float32 only: 2 threads with two test programs at a time on two cores make OpenMP's
// spin-waits the cost of the whole suite).
//
// Why bitwise: the engine computes every token row in one fixed order whatever the batch or the
// chunk (ops/linear_rows.h, the paged attention kernel, the recurrent delta rule), so no rounding
// may differ; a tolerance would hide a row that reads another sequence's pages by a little.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine_schedule.h"
#include "kinds/kind_table.h"

using namespace llm0;
using namespace llm0::kinds;
using llm0::testing_fixtures::random_tokens;
using llm0::testing_fixtures::run_schedule;

namespace {

BatchEngineOptions pages(int page_size) {
  BatchEngineOptions o;
  o.page_size = page_size, o.num_pages = 256 / page_size;
  o.prefix_cache = false;
  return o;
}

// The logits after each of the last k works of a sequence: [k, V].
std::vector<float> tail(const std::vector<float>& l, int k, int V) {
  return std::vector<float>(l.end() - (long)k * V, l.end());
}

void expect_bitwise(const std::vector<float>& got, const std::vector<float>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t first = 0;
  while (first < got.size() && std::memcmp(&got[first], &want[first], sizeof(float)) == 0) ++first;
  EXPECT_EQ(first, got.size()) << what << ": first difference at logit " << first << ": "
                               << got[first] << " vs " << want[first];
}

// A prompt of P = |t| − 3 tokens in one chunk, then 3 decode steps, alone in an engine with pages
// of 1 position: the last 4 logits [4, V].
std::vector<float> alone(Model& m, const std::vector<int>& t) {
  BatchEngine e(m, pages(1));
  const int P = (int)t.size() - 3, V = m.config().vocab_size;
  return tail(run_schedule(m, {t}, {{P, 1, 1, 1}}, e)[0], 4, V);
}

class KindBatch : public ::testing::TestWithParam<KindRow> {
 protected:
  // Runs `check` on the row's model with float32 weights and cache, then with BF16 ones.
  template <class F>
  void for_each_dtype(F&& check) {
    for (bool bf16 : {false, true}) {
      SCOPED_TRACE(bf16 ? "bf16 weights and cache" : "f32");
      Model m(GetParam().config);
      prepare(m, GetParam(), 21);
      if (bf16) m.use_bf16_weights(), m.set_kv_dtype(ElementType::BF16);
      check(m);
    }
  }
};

}  // namespace

TEST_P(KindBatch, ChunkedPrefillEqualsWholeBitwise) {
  for_each_dtype([](Model& m) {
    const int V = m.config().vocab_size;
    const std::vector<int> a = random_tokens(37, V, 31);
    const std::vector<float> whole = alone(m, a);
    for (const std::vector<int>& chunks :
         {std::vector<int>{1, 3, 5, 7, 18, 1, 1, 1}, std::vector<int>{2, 2, 2, 28, 1, 1, 1}}) {
      BatchEngine e(m, pages(4));
      std::string what = "chunks";
      for (int n : chunks) what += " " + std::to_string(n);
      expect_bitwise(tail(run_schedule(m, {a}, {chunks}, e)[0], 4, V), whole, what);
    }
  });
}

// Three sequences (prompts 34, 9, 22): prefilled in one step and decoded together, then with
// staggered partners (a prefill next to another sequence's decodes).
TEST_P(KindBatch, BatchOfNEqualsEachAloneBitwise) {
  for_each_dtype([](Model& m) {
    const int V = m.config().vocab_size;
    const std::vector<std::vector<int>> seqs = {random_tokens(37, V, 31), random_tokens(12, V, 32),
                                                random_tokens(25, V, 33)};
    std::vector<std::vector<float>> want;
    for (const auto& s : seqs) want.push_back(alone(m, s));
    const std::vector<std::vector<std::vector<int>>> schedules = {
        {{34, 1, 1, 1}, {9, 1, 1, 1}, {22, 1, 1, 1}},                 // together
        {{34, 1, 1, 1, 0, 0}, {0, 9, 1, 1, 1, 0}, {0, 0, 22, 1, 1, 1}}};  // staggered
    for (size_t k = 0; k < schedules.size(); ++k) {
      const int threads = omp_get_max_threads();
      const bool two = k == 0 && !m.bf16_weights();  // one run per row on 2 threads
      omp_set_num_threads(two ? 2 : 1);
      BatchEngine e(m, pages(4));
      const std::vector<std::vector<float>> got = run_schedule(m, seqs, schedules[k], e);
      omp_set_num_threads(threads);
      for (size_t i = 0; i < seqs.size(); ++i)
        expect_bitwise(tail(got[i], 4, V), want[i], "sequence " + std::to_string(i) +
                                                        (k == 0 ? " together" : " staggered"));
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindBatch, every_kind(), row_name);
