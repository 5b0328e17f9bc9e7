// Activation ops (SwiGLU, GELU exact and tanh): fast forward vs the double
// reference on random inputs and on extreme values (no NaN, saturation), and backward vs finite
// differences of the reference forward (dgate, dup, dx overwritten).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/activation.h"
#include "ops/ref/ref_activation.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

// Random values plus extremes where exp/tanh saturate.
std::vector<float> inputs(size_t n, std::mt19937& rng, float range) {
  auto v = rand_vec(n, rng, -range, range);
  const float extremes[] = {0.0f, -0.0f, 1e-20f, -1e-20f, 20.0f, -20.0f, 88.0f, -88.0f, 100.0f,
                            -100.0f, 1000.0f, -1000.0f, 3e4f, -3e4f};
  for (float e : extremes) v.push_back(e);
  return v;
}

TEST(OpsActivation, SwigluForwardMatchesReference) {
  for (size_t n : {1ul, 7ul, 1000ul, 40000ul}) {  // 40000 > the OpenMP threshold
    SCOPED_TRACE("n=" + std::to_string(n));
    std::mt19937 rng(1 + n);
    const auto gate = inputs(n, rng, 8.0f);
    const auto up = rand_vec(gate.size(), rng, -3, 3);
    std::vector<float> h(gate.size());
    swiglu_forward(h.data(), gate.data(), up.data(), gate.size());
    std::vector<double> want(h.size());
    const auto gd = to_double(gate), ud = to_double(up);
    ref::swiglu_forward(want.data(), gd.data(), ud.data(), gd.size());
    EXPECT_TRUE(all_close(h, want, 1e-5, 1e-6, "h"));
  }
}

TEST(OpsActivation, GeluForwardMatchesReference) {
  for (bool tanh_approx : {false, true}) {
    for (size_t n : {1ul, 9ul, 1000ul, 40000ul}) {
      SCOPED_TRACE(format("n={} tanh_approx={}", n, tanh_approx));
      std::mt19937 rng(7 + n);
      const auto x = inputs(n, rng, 6.0f);
      std::vector<float> y(x.size());
      gelu_forward(y.data(), x.data(), x.size(), tanh_approx);
      std::vector<double> want(y.size());
      const auto xd = to_double(x);
      ref::gelu_forward(want.data(), xd.data(), xd.size(), tanh_approx);
      // atol covers the far negative tail, where gelu(x) ≈ 0 is a tiny difference of floats.
      EXPECT_TRUE(all_close(y, want, 1e-5, 1e-6, "y"));
    }
  }
  // The two forms are different functions (the tanh form is an approximation).
  const float x = 1.5f;
  float exact, approx;
  gelu_forward(&exact, &x, 1, false);
  gelu_forward(&approx, &x, 1, true);
  EXPECT_GT(std::fabs(exact - approx), 1e-5f);
}

TEST(OpsActivation, SwigluBackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t n : {1ul, 13ul, 500ul}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::mt19937 rng(20 + n);
    const auto gate = rand_vec(n, rng, -6, 6), up = rand_vec(n, rng, -2, 2);
    const auto r = test::upstream(n, rng);
    std::vector<float> dgate(n, nan), dup(n, nan);
    swiglu_backward(dgate.data(), dup.data(), r.data(), gate.data(), up.data(), n);
    auto gd = to_double(gate), ud = to_double(up);
    const auto rd = to_double(r);
    std::vector<double> hd(n);
    auto loss = [&] {
      ref::swiglu_forward(hd.data(), gd.data(), ud.data(), n);
      return test::dot(rd, hd);
    };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dgate, test::fd_grad(gd, loss), kGradRtol, kGradAtol, "dgate"));
    EXPECT_TRUE(all_close(dup, test::fd_grad(ud, loss), kGradRtol, kGradAtol, "dup"));
  }
}

// The row-strided SwiGLU (the MLP's fused [N, 2F] gate|up rows, ld = 2F; or any ld ≥ F) computes
// each row exactly as the flat op on that row's values gathered contiguous (both use the SIMD
// formula on 16-lane blocks, a row's tail zero-padded), and writes nothing between rows. The flat
// op is checked against the reference and finite differences above.
TEST(OpsActivation, SwigluRowsEqualTheFlatOpRowByRow) {
  const float sentinel = -7.25f;
  struct Case { int N, F; long ld; };
  for (const Case c : {Case{5, 21, 42}, Case{3, 16, 37}, Case{600, 70, 140}, Case{1, 33, 33}}) {
    SCOPED_TRACE(format("N={} F={} ld={}", c.N, c.F, c.ld));  // 600·70 > the OpenMP threshold
    std::mt19937 rng(90 + c.F);
    const size_t NL = (size_t)c.N * c.ld, NF = (size_t)c.N * c.F;
    const auto gu = rand_vec(NL + c.F, rng, -6, 6);  // gate rows at 0, up rows at +F
    const auto dh = rand_vec(NF, rng, -2, 2);
    const float* gate = gu.data();
    const float* up = gu.data() + c.F;
    std::vector<float> h(NF), dgu(NL + c.F, sentinel);
    swiglu_forward_rows(h.data(), gate, up, c.N, c.F, c.ld);
    swiglu_backward_rows(dgu.data(), dgu.data() + c.F, dh.data(), gate, up, c.N, c.F, c.ld);
    for (int n = 0; n < c.N; ++n) {
      const long r = (long)n * c.ld;
      std::vector<float> g(gate + r, gate + r + c.F), u(up + r, up + r + c.F), hr(c.F);
      std::vector<float> dg(c.F), du(c.F);
      swiglu_forward(hr.data(), g.data(), u.data(), c.F);
      swiglu_backward(dg.data(), du.data(), dh.data() + (long)n * c.F, g.data(), u.data(), c.F);
      for (int f = 0; f < c.F; ++f) {
        ASSERT_EQ(h[(size_t)n * c.F + f], hr[f]) << n << "," << f;
        ASSERT_EQ(dgu[r + f], dg[f]) << n << "," << f;
        ASSERT_EQ(dgu[r + c.F + f], du[f]) << n << "," << f;
      }
      for (long j = 2L * c.F; j < c.ld; ++j) ASSERT_EQ(dgu[r + j], sentinel) << n << "," << j;
    }
  }
}

TEST(OpsActivation, GeluBackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (bool tanh_approx : {false, true}) {
    for (size_t n : {1ul, 13ul, 500ul}) {
      SCOPED_TRACE(format("n={} tanh_approx={}", n, tanh_approx));
      std::mt19937 rng(40 + n);
      const auto x = rand_vec(n, rng, -5, 5);
      const auto r = test::upstream(n, rng);
      std::vector<float> dx(n, nan);
      gelu_backward(dx.data(), r.data(), x.data(), n, tanh_approx);
      auto xd = to_double(x);
      const auto rd = to_double(r);
      std::vector<double> yd(n);
      auto loss = [&] {
        ref::gelu_forward(yd.data(), xd.data(), n, tanh_approx);
        return test::dot(rd, yd);
      };
      EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), test::kGradRtol, test::kGradAtol, "dx"));
    }
  }
}

}  // namespace
}  // namespace llm0
