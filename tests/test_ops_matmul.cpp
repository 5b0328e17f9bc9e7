// Linear op (y = x Wᵀ + b on OpenBLAS): forward vs the naive double reference over a shape table
// (N = 1, odd sizes, every dim different, with and without bias); backward vs finite differences
// of the reference with the gradient rules: dx overwritten (or added with accumulate_dx, or
// skipped when null), dW and db accumulated into pre-filled buffers.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/threads.h"
#include "ops/matmul.h"
#include "ops/ref/ref_matmul.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int N, I, O;
  bool bias;
};

std::string describe(const Case& c) {
  return format("N={} I={} O={} bias={}", c.N, c.I, c.O, c.bias);
}

struct Inputs {
  std::vector<float> x, W, b;  // [N, I], [O, I], [O] (empty without bias)
};

Inputs random_inputs(const Case& c, std::mt19937& rng) {
  return {rand_vec((size_t)c.N * c.I, rng), rand_vec((size_t)c.O * c.I, rng),
          c.bias ? rand_vec(c.O, rng) : std::vector<float>{}};
}

TEST(OpsMatmul, ForwardMatchesReference) {
  const Case cases[] = {{1, 1, 1, true},     {1, 7, 5, false},     {7, 13, 5, true},
                        {64, 65, 3, true},   {33, 128, 257, false}, {5, 300, 11, true},
                        {130, 17, 63, true}, {2, 1, 9, false}};
  unsigned seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Inputs in = random_inputs(c, rng);
    const float* b = c.bias ? in.b.data() : nullptr;
    std::vector<float> y((size_t)c.N * c.O, std::numeric_limits<float>::quiet_NaN());
    linear_forward(y.data(), in.x.data(), in.W.data(), b, c.N, c.I, c.O);
    const auto xd = to_double(in.x), Wd = to_double(in.W), bd = to_double(in.b);
    std::vector<double> want(y.size());
    ref::linear_forward(want.data(), xd.data(), Wd.data(), c.bias ? bd.data() : nullptr, c.N, c.I,
                        c.O);
    EXPECT_TRUE(all_close(y, want, 1e-5, 2e-6 * std::sqrt((double)c.I), "y", {c.N, c.O}));
  }
}

TEST(OpsMatmul, BackwardMatchesFiniteDifferences) {
  const Case cases[] = {{1, 1, 1, true},  {1, 7, 5, false}, {7, 13, 5, true},
                        {64, 65, 3, true}, {6, 10, 70, true}, {9, 4, 2, false}};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  unsigned seed = 30;
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Inputs in = random_inputs(c, rng);
    const auto r = test::upstream((size_t)c.N * c.O, rng);  // dy
    std::vector<float> dx(in.x.size(), nan);
    const auto dW0 = rand_vec(in.W.size(), rng), db0 = rand_vec(c.O, rng);
    auto dW = dW0, db = db0;
    linear_backward(dx.data(), dW.data(), c.bias ? db.data() : nullptr, r.data(), in.x.data(),
                    in.W.data(), c.N, c.I, c.O);
    for (size_t i = 0; i < dW.size(); ++i) dW[i] -= dW0[i];  // the part this call added
    for (size_t i = 0; i < db.size(); ++i) db[i] -= db0[i];

    auto xd = to_double(in.x), Wd = to_double(in.W), bd = to_double(in.b);
    const auto rd = to_double(r);
    std::vector<double> yd(r.size());
    auto loss = [&] {
      ref::linear_forward(yd.data(), xd.data(), Wd.data(), c.bias ? bd.data() : nullptr, c.N,
                          c.I, c.O);
      return test::dot(rd, yd);
    };
    using test::kGradAtol, test::kGradRtol;
    const auto gx = test::fd_grad(xd, loss);
    EXPECT_TRUE(all_close(dx, gx, kGradRtol, kGradAtol, "dx", {c.N, c.I}));
    EXPECT_TRUE(all_close(dW, test::fd_grad(Wd, loss), kGradRtol, kGradAtol, "dW (added)",
                          {c.O, c.I}));
    if (c.bias) {
      EXPECT_TRUE(all_close(db, test::fd_grad(bd, loss), kGradRtol, kGradAtol, "db (added)",
                            {c.O}));
    }

    // accumulate_dx adds into dx; a null dx skips it and leaves dW's rule intact.
    const auto dx0 = rand_vec(in.x.size(), rng);
    auto dx_acc = dx0;
    std::vector<float> dW2(in.W.size(), 0.0f);
    linear_backward(dx_acc.data(), dW2.data(), nullptr, r.data(), in.x.data(), in.W.data(), c.N,
                    c.I, c.O, /*accumulate_dx=*/true);
    for (size_t i = 0; i < dx_acc.size(); ++i) dx_acc[i] -= dx0[i];
    EXPECT_TRUE(all_close(dx_acc, gx, kGradRtol, kGradAtol, "dx (accumulate_dx, added)",
                          {c.N, c.I}));
    std::vector<float> dW3(in.W.size(), 0.0f);
    linear_backward(nullptr, dW3.data(), nullptr, r.data(), in.x.data(), in.W.data(), c.N, c.I,
                    c.O);
    EXPECT_TRUE(all_close(dW3, dW2, 0.0, 0.0, "dW with dx = null", {c.O, c.I}));
  }
}

// linear_forward_group: weights stored back to back (the q/k/v and gate/up layout of ParamStore)
// and apart, with and without biases, for N = 1 (matvec_group) and N > 1, at 1 and 2 threads,
// each output against the double reference of its own linear.
TEST(OpsMatmul, GroupMatchesEachLinear) {
  const int I = 70, Os[] = {48, 16, 16};
  for (int threads : {1, 2})
    for (bool stacked : {true, false})
      for (int N : {1, 5, 64, 1000}) {  // 1000 rows: the row split runs on threads
        SCOPED_TRACE(format("threads={} stacked={} N={}", threads, stacked, N));
        set_num_threads(threads);
        std::mt19937 rng(11 + N);
        const auto x = rand_vec((size_t)N * I, rng);
        const auto all = rand_vec((size_t)(48 + 16 + 16) * I, rng);  // stacked [80, I]
        std::vector<std::vector<float>> W(3), b(3), y(3);
        std::vector<LinearOut> outs;
        long off = 0;
        for (int k = 0; k < 3; ++k) {
          W[k].assign(all.begin() + off, all.begin() + off + (long)Os[k] * I);
          off += (long)Os[k] * I;
          if (k != 1) b[k] = rand_vec((size_t)Os[k], rng);
          y[k].assign((size_t)N * Os[k], std::numeric_limits<float>::quiet_NaN());
          const float* Wk = stacked ? all.data() + (off - (long)Os[k] * I) : W[k].data();
          outs.push_back({y[k].data(), Wk, b[k].empty() ? nullptr : b[k].data(), Os[k]});
        }
        linear_forward_group(outs, x.data(), N, I);
        for (int k = 0; k < 3; ++k) {
          const auto xd = to_double(x), Wd = to_double(W[k]), bd = to_double(b[k]);
          std::vector<double> want((size_t)N * Os[k]);
          ref::linear_forward(want.data(), xd.data(), Wd.data(),
                              b[k].empty() ? nullptr : bd.data(), N, I, Os[k]);
          EXPECT_TRUE(all_close(y[k], want, 1e-5, 2e-5, "y", {N, Os[k]})) << "output " << k;
        }
      }
  set_num_threads(1);
}

}  // namespace
}  // namespace llm0
