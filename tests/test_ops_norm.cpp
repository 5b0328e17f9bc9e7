// RMSNorm and LayerNorm ops: fast forward vs the double reference over a shape table (C = 1, odd
// C, large C) and several eps values (a non-default eps must change the output); backward vs
// finite differences of the reference for dx (overwritten) and dw, db (accumulated); invariants
// (LayerNorm's dx sums to 0 per row; with eps -> 0 both dx are orthogonal to the scale direction).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/norm.h"
#include "ops/ref/ref_norm.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int N, C;
  float eps, x_scale;  // x uniform in [-x_scale, x_scale)
};

std::string describe(const Case& c) {
  return format("N={} C={} eps={} x_scale={}", c.N, c.C, c.eps, c.x_scale);
}

const Case kCases[] = {
    {1, 1, 1e-5f, 1.0f},    {3, 7, 1e-6f, 1.0f},   {16, 64, 1e-5f, 2.0f}, {5, 257, 1e-6f, 0.5f},
    {33, 1000, 1e-5f, 1.0f}, {2, 4096, 1e-6f, 1.0f}, {4, 9, 0.1f, 0.2f},  {7, 33, 1.0f, 0.5f},
};

struct Params {
  std::vector<float> x, w, b;  // [N, C], [C], [C]
};

Params random_params(const Case& c, std::mt19937& rng) {
  return {rand_vec((size_t)c.N * c.C, rng, -c.x_scale, c.x_scale), rand_vec(c.C, rng, 0.5f, 1.5f),
          rand_vec(c.C, rng, -0.5f, 0.5f)};
}

TEST(OpsNorm, RmsnormForwardMatchesReference) {
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Params p = random_params(c, rng);
    std::vector<float> y(p.x.size()), rstd(c.N);
    rmsnorm_forward(y.data(), rstd.data(), p.x.data(), p.w.data(), c.N, c.C, c.eps);
    std::vector<double> want(y.size());
    const auto xd = to_double(p.x), wd = to_double(p.w);
    ref::rmsnorm_forward(want.data(), xd.data(), wd.data(), c.N, c.C, c.eps);
    EXPECT_TRUE(all_close(y, want, 1e-5, 1e-6, "y", {c.N, c.C}));
  }
}

TEST(OpsNorm, LayernormForwardMatchesReference) {
  unsigned seed = 20;
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Params p = random_params(c, rng);
    std::vector<float> y(p.x.size()), mean(c.N), rstd(c.N);
    layernorm_forward(y.data(), mean.data(), rstd.data(), p.x.data(), p.w.data(), p.b.data(), c.N,
                      c.C, c.eps);
    std::vector<double> want(y.size());
    const auto xd = to_double(p.x), wd = to_double(p.w), bd = to_double(p.b);
    ref::layernorm_forward(want.data(), xd.data(), wd.data(), bd.data(), c.N, c.C, c.eps);
    EXPECT_TRUE(all_close(y, want, 1e-5, 1e-6, "y", {c.N, c.C}));
  }
}

// eps is read: on small activations a non-default eps changes the output by far more than the
// tolerance, and the fast op follows the reference with that eps.
TEST(OpsNorm, NonDefaultEpsChangesOutput) {
  const int N = 4, C = 24;
  std::mt19937 rng(3);
  const auto x = rand_vec(N * C, rng, -0.05f, 0.05f), w = rand_vec(C, rng, 0.5f, 1.5f);
  const auto b = rand_vec(C, rng);
  std::vector<float> y_small(N * C), y_big(N * C), l_small(N * C), l_big(N * C);
  rmsnorm_forward(y_small.data(), nullptr, x.data(), w.data(), N, C, 1e-6f);
  rmsnorm_forward(y_big.data(), nullptr, x.data(), w.data(), N, C, 1e-2f);
  layernorm_forward(l_small.data(), nullptr, nullptr, x.data(), w.data(), b.data(), N, C, 1e-6f);
  layernorm_forward(l_big.data(), nullptr, nullptr, x.data(), w.data(), b.data(), N, C, 1e-2f);
  EXPECT_FALSE(all_close(y_big, y_small, 1e-2, 1e-3, "rmsnorm eps 1e-2 vs 1e-6"));
  EXPECT_FALSE(all_close(l_big, l_small, 1e-2, 1e-3, "layernorm eps 1e-2 vs 1e-6"));
  const auto xd = to_double(x), wd = to_double(w), bd = to_double(b);
  std::vector<double> want(N * C);
  ref::rmsnorm_forward(want.data(), xd.data(), wd.data(), N, C, (double)1e-2f);
  EXPECT_TRUE(all_close(y_big, want, 1e-5, 1e-6, "rmsnorm eps 1e-2", {N, C}));
  ref::layernorm_forward(want.data(), xd.data(), wd.data(), bd.data(), N, C, (double)1e-2f);
  EXPECT_TRUE(all_close(l_big, want, 1e-5, 1e-6, "layernorm eps 1e-2", {N, C}));
}

// loss = <r, y>. dx is overwritten (pre-filled with NaN); dw accumulates into a pre-filled buffer.
TEST(OpsNorm, RmsnormBackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  unsigned seed = 40;
  for (const Case& c : kCases) {
    if ((size_t)c.N * c.C > 4000) continue;  // FD cost
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Params p = random_params(c, rng);
    const auto r = test::upstream((size_t)c.N * c.C, rng);
    std::vector<float> y(r.size()), rstd(c.N), dx(r.size(), nan);
    const auto dw0 = rand_vec(c.C, rng);
    auto dw = dw0;
    rmsnorm_forward(y.data(), rstd.data(), p.x.data(), p.w.data(), c.N, c.C, c.eps);
    rmsnorm_backward(dx.data(), dw.data(), r.data(), p.x.data(), p.w.data(), rstd.data(), c.N,
                     c.C);
    for (int i = 0; i < c.C; ++i) dw[i] -= dw0[i];  // the part this call added
    auto xd = to_double(p.x), wd = to_double(p.w);
    const auto rd = to_double(r);
    std::vector<double> yd(r.size());
    auto loss = [&] {
      ref::rmsnorm_forward(yd.data(), xd.data(), wd.data(), c.N, c.C, c.eps);
      return test::dot(rd, yd);
    };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), kGradRtol, kGradAtol, "dx", {c.N, c.C}));
    EXPECT_TRUE(all_close(dw, test::fd_grad(wd, loss), kGradRtol, kGradAtol, "dw (added)", {c.C}));
  }
}

TEST(OpsNorm, LayernormBackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  unsigned seed = 60;
  for (const Case& c : kCases) {
    if ((size_t)c.N * c.C > 4000) continue;
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const Params p = random_params(c, rng);
    const auto r = test::upstream((size_t)c.N * c.C, rng);
    std::vector<float> y(r.size()), mean(c.N), rstd(c.N), dx(r.size(), nan);
    const auto dw0 = rand_vec(c.C, rng), db0 = rand_vec(c.C, rng);
    auto dw = dw0, db = db0;
    layernorm_forward(y.data(), mean.data(), rstd.data(), p.x.data(), p.w.data(), p.b.data(), c.N,
                      c.C, c.eps);
    layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), p.x.data(), p.w.data(),
                       mean.data(), rstd.data(), c.N, c.C);
    for (int i = 0; i < c.C; ++i) dw[i] -= dw0[i], db[i] -= db0[i];
    auto xd = to_double(p.x), wd = to_double(p.w), bd = to_double(p.b);
    const auto rd = to_double(r);
    std::vector<double> yd(r.size());
    auto loss = [&] {
      ref::layernorm_forward(yd.data(), xd.data(), wd.data(), bd.data(), c.N, c.C, c.eps);
      return test::dot(rd, yd);
    };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), kGradRtol, kGradAtol, "dx", {c.N, c.C}));
    EXPECT_TRUE(all_close(dw, test::fd_grad(wd, loss), kGradRtol, kGradAtol, "dw (added)", {c.C}));
    EXPECT_TRUE(all_close(db, test::fd_grad(bd, loss), kGradRtol, kGradAtol, "db (added)", {c.C}));
  }
}

// LayerNorm output is invariant to x -> x + a·1 and (eps -> 0) to x -> s·x, so dx sums to 0 per
// row and is orthogonal to x - mean; RMSNorm (eps -> 0) is scale invariant, so Σ_c dx_c x_c = 0.
TEST(OpsNorm, BackwardInvariants) {
  const int N = 6, C = 37;
  const float eps = 1e-12f;
  std::mt19937 rng(80);
  const auto x = rand_vec(N * C, rng, -2, 2), w = rand_vec(C, rng, 0.5f, 1.5f);
  const auto b = rand_vec(C, rng), r = test::upstream(N * C, rng);
  std::vector<float> y(N * C), mean(N), rstd(N), dx(N * C), dw(C), db(C);
  layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, eps);
  layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(),
                     rstd.data(), N, C);
  for (int n = 0; n < N; ++n) {
    double s = 0, sx = 0, mag = 0;
    for (int c = 0; c < C; ++c) {
      s += dx[n * C + c];
      sx += (double)dx[n * C + c] * (x[n * C + c] - mean[n]);
      mag += std::fabs(dx[n * C + c]);
    }
    EXPECT_NEAR(s, 0.0, 1e-6 * mag) << "layernorm dx row " << n << " does not sum to 0";
    EXPECT_NEAR(sx, 0.0, 1e-5 * mag) << "layernorm dx row " << n << " not orthogonal to x - mean";
  }
  rmsnorm_forward(y.data(), rstd.data(), x.data(), w.data(), N, C, eps);
  rmsnorm_backward(dx.data(), dw.data(), r.data(), x.data(), w.data(), rstd.data(), N, C);
  for (int n = 0; n < N; ++n) {
    double sx = 0, mag = 0;
    for (int c = 0; c < C; ++c) {
      sx += (double)dx[n * C + c] * x[n * C + c];
      mag += std::fabs(dx[n * C + c] * x[n * C + c]);
    }
    EXPECT_NEAR(sx, 0.0, 1e-5 * mag) << "rmsnorm dx row " << n << " not orthogonal to x";
  }
}

}  // namespace
}  // namespace llm0
