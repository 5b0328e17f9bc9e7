// Decode matrix-vector product (ops/matvec): every row length around the kernel's 64- and
// 16-float steps and their tails, with and without bias, at 1 and 2 threads, against the naive
// double reference of the linear layer; and a group of products sharing x (uneven row counts, so
// the thread split falls inside a target) equals the same products run one by one.
#include <cmath>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/threads.h"
#include "ops/matvec.h"
#include "ops/ref/ref_matmul.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

std::vector<double> reference(const std::vector<float>& W, const std::vector<float>& x,
                              const std::vector<float>& b, int O, int I) {
  const auto Wd = to_double(W), xd = to_double(x), bd = to_double(b);
  std::vector<double> y((size_t)O);
  ref::linear_forward(y.data(), xd.data(), Wd.data(), b.empty() ? nullptr : bd.data(), 1, I, O);
  return y;
}

TEST(OpsMatvec, MatchesReferenceForEveryTailLength) {
  const int lengths[] = {1, 15, 16, 17, 63, 64, 65, 80, 127, 128, 129, 384, 1000};
  unsigned seed = 1;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (int I : lengths)
      for (int O : {1, 3, 257})
        for (bool bias : {false, true}) {
          SCOPED_TRACE(format("threads={} I={} O={} bias={}", threads, I, O, bias));
          std::mt19937 rng(seed++);
          const auto W = rand_vec((size_t)O * I, rng), x = rand_vec((size_t)I, rng);
          const auto b = bias ? rand_vec((size_t)O, rng) : std::vector<float>{};
          std::vector<float> y((size_t)O, std::numeric_limits<float>::quiet_NaN());
          matvec(y.data(), W.data(), x.data(), bias ? b.data() : nullptr, O, I);
          EXPECT_TRUE(all_close(y, reference(W, x, b, O, I), 1e-5, 2e-6 * std::sqrt((double)I),
                                "y", {O}));
        }
  }
  set_num_threads(1);
}

TEST(OpsMatvec, GroupEqualsEachProductAlone) {
  const int I = 200, Os[] = {96, 32, 33};  // 161 rows: 2 threads split inside the second target
  std::mt19937 rng(7);
  const auto x = rand_vec((size_t)I, rng);
  std::vector<std::vector<float>> W, b, y, alone;
  std::vector<LinearOut> outs;
  for (int k = 0; k < 3; ++k) {
    W.push_back(rand_vec((size_t)Os[k] * I, rng));
    b.push_back(k == 1 ? std::vector<float>{} : rand_vec((size_t)Os[k], rng));
    y.emplace_back((size_t)Os[k], std::numeric_limits<float>::quiet_NaN());
    alone.emplace_back((size_t)Os[k], 0.0f);
  }
  for (int k = 0; k < 3; ++k)
    outs.push_back({y[k].data(), W[k].data(), b[k].empty() ? nullptr : b[k].data(), Os[k]});
  for (int threads : {1, 2}) {
    SCOPED_TRACE(format("threads={}", threads));
    set_num_threads(threads);
    matvec_group(outs, x.data(), I);
    for (int k = 0; k < 3; ++k) {
      matvec(alone[k].data(), W[k].data(), x.data(), outs[k].b, Os[k], I);
      EXPECT_EQ(y[k], alone[k]) << "target " << k;  // same kernel, same order: bit-identical
      EXPECT_TRUE(all_close(y[k], reference(W[k], x, b[k], Os[k], I), 1e-5, 3e-5, "y", {Os[k]}));
    }
  }
  set_num_threads(1);
}

}  // namespace
}  // namespace llm0
