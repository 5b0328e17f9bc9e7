// Residual add (y += x): fast vs the double reference (including above the OpenMP threshold) and
// its gradient w.r.t. both operands vs finite differences; y = x + branch vs copy-then-add.
#include <cmath>
#include <string>
#include <vector>

#include "ops/ref/ref_residual.h"
#include "ops/residual.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

// Residual add: y += x; its gradient w.r.t. both operands is the upstream gradient, which the
// backward realises as another residual_add (dstream += dbranch).
TEST(OpsResidual, AddMatchesReferenceAndFiniteDifferences) {
  for (size_t n : {1ul, 17ul, 70000ul}) {  // 70000 > the OpenMP threshold
    SCOPED_TRACE("n=" + std::to_string(n));
    std::mt19937 rng(60 + n);
    const auto x = rand_vec(n, rng), y0 = rand_vec(n, rng);
    auto y = y0;
    residual_add(y.data(), x.data(), n);
    auto want = to_double(y0);
    const auto xd = to_double(x);
    ref::residual_add(want.data(), xd.data(), n);
    EXPECT_TRUE(all_close(y, want, 1e-7, 0.0, "y"));
  }
  const size_t n = 11;
  std::mt19937 rng(5);
  auto xd = to_double(rand_vec(n, rng)), sd = to_double(rand_vec(n, rng));
  const auto r = test::upstream(n, rng);
  const auto rd = to_double(r);
  std::vector<double> yd(n);
  auto loss = [&] {
    yd = sd;
    ref::residual_add(yd.data(), xd.data(), n);
    return test::dot(rd, yd);
  };
  std::vector<float> dstream(n, 0.0f);  // backward: dstream += dy, dbranch = dy
  residual_add(dstream.data(), r.data(), n);
  EXPECT_TRUE(all_close(dstream, test::fd_grad(sd, loss), 1e-6, 1e-8, "dstream"));
  EXPECT_TRUE(all_close(r, test::fd_grad(xd, loss), 1e-6, 1e-8, "dbranch"));
}

// residual_add_to(y, x, branch) is the block's forward residual into a new buffer: each element is
// the one float addition x + branch, so it must equal a copy of x followed by residual_add bit
// for bit, below and above the OpenMP threshold, and leave both inputs untouched.
TEST(OpsResidual, AddToEqualsCopyThenAdd) {
  for (size_t n : {1ul, 17ul, 70000ul}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::mt19937 rng(80 + n);
    const auto x = rand_vec(n, rng), branch = rand_vec(n, rng);
    std::vector<float> y(n, std::nanf("")), want = x;
    residual_add(want.data(), branch.data(), n);
    auto x_in = x, b_in = branch;
    residual_add_to(y.data(), x_in.data(), b_in.data(), n);
    EXPECT_EQ(y, want);
    EXPECT_EQ(x_in, x);
    EXPECT_EQ(b_in, branch);
  }
}

}  // namespace
}  // namespace llm0
