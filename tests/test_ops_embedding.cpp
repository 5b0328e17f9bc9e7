// Embedding op: forward vs the double reference (exact copies), backward vs finite differences of
// the reference with repeated ids (dW accumulates into a pre-filled buffer), and out-of-range ids
// (>= V or < 0) rejected with llm0::Error.
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/embedding.h"
#include "ops/ref/ref_embedding.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int N, C, V;
};

// Ids cycle through a pattern with repeats and both ends of the vocabulary.
std::vector<int> ids_for(const Case& c, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(0, c.V - 1);
  std::vector<int> ids(c.N);
  for (int n = 0; n < c.N; ++n) ids[n] = n % 4 == 1 ? ids[n - 1] : n % 4 == 2 ? c.V - 1 : u(rng);
  if (c.N > 3) ids[3] = 0;
  return ids;
}

const Case kCases[] = {{1, 1, 1}, {7, 5, 11}, {64, 33, 13}, {13, 7, 3}, {5, 129, 1000}};

TEST(OpsEmbedding, ForwardMatchesReference) {
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(format("N={} C={} V={}", c.N, c.C, c.V));
    std::mt19937 rng(seed++);
    const auto ids = ids_for(c, rng);
    const auto W = rand_vec((size_t)c.V * c.C, rng);
    std::vector<float> y((size_t)c.N * c.C);
    embedding_forward(y.data(), ids.data(), W.data(), c.N, c.C, c.V);
    const auto Wd = to_double(W);
    std::vector<double> want(y.size());
    ref::embedding_forward(want.data(), ids.data(), Wd.data(), c.N, c.C, c.V);
    EXPECT_TRUE(all_close(y, want, 0.0, 0.0, "y", {c.N, c.C}));
  }
}

TEST(OpsEmbedding, BackwardMatchesFiniteDifferencesAndAccumulates) {
  unsigned seed = 10;
  for (const Case& c : kCases) {
    if ((size_t)c.V * c.C > 20000) continue;  // FD cost
    SCOPED_TRACE(format("N={} C={} V={}", c.N, c.C, c.V));
    std::mt19937 rng(seed++);
    const auto ids = ids_for(c, rng);
    const auto W = rand_vec((size_t)c.V * c.C, rng);
    const auto r = test::upstream((size_t)c.N * c.C, rng);
    const auto dW0 = rand_vec(W.size(), rng);
    auto dW = dW0;
    embedding_backward(dW.data(), r.data(), ids.data(), c.N, c.C);
    for (size_t i = 0; i < dW.size(); ++i) dW[i] -= dW0[i];  // the part this call added
    auto Wd = to_double(W);
    const auto rd = to_double(r);
    std::vector<double> yd(r.size());
    auto loss = [&] {
      ref::embedding_forward(yd.data(), ids.data(), Wd.data(), c.N, c.C, c.V);
      return test::dot(rd, yd);
    };
    EXPECT_TRUE(all_close(dW, test::fd_grad(Wd, loss), test::kGradRtol, test::kGradAtol,
                          "dW (added)", {c.V, c.C}));
  }
}

TEST(OpsEmbedding, OutOfRangeIdsThrow) {
  const int C = 3, V = 5;
  std::vector<float> W(V * C, 1.0f), y(4 * C);
  std::vector<double> Wd(V * C, 1.0), yd(4 * C);
  for (int bad : {V, V + 100, -1, -100}) {
    const std::vector<int> ids = {0, 4, bad, 1};
    EXPECT_THROW(embedding_forward(y.data(), ids.data(), W.data(), 4, C, V), Error) << bad;
    EXPECT_THROW(ref::embedding_forward(yd.data(), ids.data(), Wd.data(), 4, C, V), Error) << bad;
    try {
      embedding_forward(y.data(), ids.data(), W.data(), 4, C, V);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos)
          << "message should name the id: " << e.what();
    }
  }
}

}  // namespace
}  // namespace llm0
