// RoPE op (rotate_half layout): fast forward vs the double reference at positions up to 40,000
// with theta 1e4 and 1e6 and partial rotary (R < D, R/2 odd); closed-form angles (frequencies
// from R, not D; theta read); partial rotary leaves dims R..D-1 bit-exact; q·k after RoPE depends
// only on the position difference; backward vs finite differences of the reference forward.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/ref/ref_rope.h"
#include "ops/rope.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int N, H, D, R;
  double theta;
};

std::string describe(const Case& c) {
  return format("N={} H={} D={} R={} theta={}", c.N, c.H, c.D, c.R, c.theta);
}

const Case kCases[] = {
    {1, 1, 2, 2, 1e4},     {5, 3, 10, 6, 1e4},   {7, 2, 16, 16, 1e6},  {4, 5, 12, 4, 1e4},
    {6, 2, 64, 64, 1e4},   {3, 4, 256, 64, 1e6}, {9, 1, 7, 2, 1e6},    {8, 3, 10, 6, 1e6},
    {5, 2, 128, 128, 1e6}, {2, 6, 80, 20, 5e5},  {3, 1, 13, 0, 1e4},   // R = 0: identity
};

// Positions far from 0 (>= 32k included), plus 0, 1 and the 2^15 boundary.
std::vector<int> positions_for(int N, std::mt19937& rng) {
  const int fixed[] = {40000, 0, 32767, 32768, 1, 39999, 12345};
  std::uniform_int_distribution<int> u(0, 40000);
  std::vector<int> pos(N);
  for (int n = 0; n < N; ++n) pos[n] = n < 7 ? fixed[n] : u(rng);
  return pos;
}

TEST(OpsRope, ForwardMatchesReference) {
  unsigned seed = 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const auto pos = positions_for(c.N, rng);
    auto x = rand_vec((size_t)c.N * c.H * c.D, rng);
    auto xd = to_double(x);
    rope_forward(x.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
    ref::rope_forward(xd.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
    EXPECT_TRUE(all_close(x, xd, 0.0, 1e-6, "x", {c.N, c.H, c.D}));  // abs: |x| <= 1
  }
}

TEST(OpsRope, PartialRotaryLeavesTailBitExact) {
  for (const Case& c : kCases) {
    if (c.R == c.D) continue;
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(2);
    const auto pos = positions_for(c.N, rng);
    const auto x0 = rand_vec((size_t)c.N * c.H * c.D, rng);
    auto x = x0, dx = x0;
    rope_forward(x.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
    rope_backward(dx.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
    for (int nh = 0; nh < c.N * c.H; ++nh) {
      const size_t off = (size_t)nh * c.D + c.R, bytes = sizeof(float) * (c.D - c.R);
      EXPECT_EQ(std::memcmp(x.data() + off, x0.data() + off, bytes), 0) << "forward, row " << nh;
      EXPECT_EQ(std::memcmp(dx.data() + off, x0.data() + off, bytes), 0) << "backward, row " << nh;
    }
  }
}

// Unit vector on pair i: after RoPE it is (cos θ_i, sin θ_i) with θ_i = pos / theta^(2i/R),
// computed here as pos · exp(-(2i/R) ln theta). Frequencies come from R (not D) and theta.
TEST(OpsRope, ClosedFormAnglesUseRotaryDimAndTheta) {
  const int D = 10, R = 6, half = R / 2;
  for (double theta : {1e4, 1e6}) {
    for (int pos : {0, 1, 777, 32768, 40000}) {
      for (int i = 0; i < half; ++i) {
        std::vector<float> x(D, 0.0f);
        x[i] = 1.0f;
        rope_forward(x.data(), &pos, 1, 1, D, R, theta);
        const double angle = pos * std::exp(-(2.0 * i / R) * std::log(theta));
        const double wrong = pos * std::exp(-(2.0 * i / D) * std::log(theta));  // head_dim freq
        EXPECT_NEAR(x[i], std::cos(angle), 2e-7) << "theta=" << theta << " pos=" << pos << " i=" << i;
        EXPECT_NEAR(x[i + half], std::sin(angle), 2e-7) << "theta=" << theta << " pos=" << pos
                                                       << " i=" << i;
        if (i > 0 && pos > 1) {
          EXPECT_GT(std::fabs(std::sin(angle) - std::sin(wrong)), 1e-3) << "case cannot tell D";
        }
      }
    }
  }
}

// After RoPE, q·k for q at m and k at n equals q·k for q at m+s and k at n+s (per head).
TEST(OpsRope, DotProductDependsOnlyOnPositionDifference) {
  const int H = 3, D = 64;
  std::mt19937 rng(4);
  for (int R : {64, 24}) {
    for (double theta : {1e4, 1e6}) {
      const auto q0 = rand_vec(H * D, rng), k0 = rand_vec(H * D, rng);
      const int pairs[][3] = {{5, 2, 30000}, {100, 4000, 7}, {32000, 31000, 8000}, {0, 0, 39999}};
      for (const auto& p : pairs) {
        const int m = p[0], n = p[1], s = p[2];
        auto dots = [&](int pq, int pk) {
          auto q = q0, k = k0;
          rope_forward(q.data(), &pq, 1, H, D, R, theta);
          rope_forward(k.data(), &pk, 1, H, D, R, theta);
          std::vector<double> out(H);
          for (int h = 0; h < H; ++h)
            for (int c = 0; c < D; ++c) out[h] += (double)q[h * D + c] * k[h * D + c];
          return out;
        };
        auto qd = to_double(q0), kd = to_double(k0);  // the double reference at (m, n)
        ref::rope_forward(qd.data(), &m, 1, H, D, R, theta);
        ref::rope_forward(kd.data(), &n, 1, H, D, R, theta);
        std::vector<double> want(H);
        for (int h = 0; h < H; ++h)
          for (int c = 0; c < D; ++c) want[h] += qd[h * D + c] * kd[h * D + c];
        const std::string where = format("R={} theta={} m={} n={} s={}", R, theta, m, n, s);
        EXPECT_TRUE(all_close(dots(m, n), want, 0.0, 5e-5, "q.k at (m, n) " + where));
        EXPECT_TRUE(all_close(dots(m + s, n + s), want, 0.0, 5e-5, "q.k at (m+s, n+s) " + where));
      }
    }
  }
}

// loss = <r, rope(x)>: dx = rope_backward(r) must match finite differences of the reference.
TEST(OpsRope, BackwardMatchesFiniteDifferences) {
  unsigned seed = 50;
  for (const Case& c : kCases) {
    if ((size_t)c.N * c.H * c.D > 2000) continue;  // FD cost
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(seed++);
    const auto pos = positions_for(c.N, rng);
    const auto x = rand_vec((size_t)c.N * c.H * c.D, rng);
    const auto r = test::upstream(x.size(), rng);
    auto dx = r;  // in place: dy -> dx
    rope_backward(dx.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
    auto xd = to_double(x);
    const auto rd = to_double(r);
    std::vector<double> y(x.size());
    auto loss = [&] {
      y = xd;
      ref::rope_forward(y.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
      return test::dot(rd, y);
    };
    EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), test::kGradRtol, test::kGradAtol, "dx",
                          {c.N, c.H, c.D}));
  }
}

TEST(OpsRope, BackwardInvertsForward) {
  const Case c{6, 3, 10, 6, 1e6};
  std::mt19937 rng(8);
  const auto pos = positions_for(c.N, rng);
  const auto x0 = rand_vec((size_t)c.N * c.H * c.D, rng);
  auto x = x0;
  rope_forward(x.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
  rope_backward(x.data(), pos.data(), c.N, c.H, c.D, c.R, c.theta);
  EXPECT_TRUE(all_close(x, x0, 0.0, 1e-6, "rope_backward(rope_forward(x))", {c.N, c.H, c.D}));
}

TEST(OpsRope, BadRotaryDimThrows) {
  std::vector<float> x(40, 0.0f);
  const int pos = 3;
  EXPECT_THROW(rope_forward(x.data(), &pos, 1, 1, 10, 5, 1e4), Error);   // odd R
  EXPECT_THROW(rope_forward(x.data(), &pos, 1, 1, 10, 12, 1e4), Error);  // R > D
  std::vector<double> xd(40, 0.0);
  EXPECT_THROW(ref::rope_forward(xd.data(), &pos, 1, 1, 10, 5, 1e4), Error);
}

}  // namespace
}  // namespace llm0

namespace llm0 {
namespace {

// DeepSeek's interleaved layout (MLA): pair i is dims (offset + 2i, offset + 2i + 1), θ_i =
// pos · theta^(-2i/R); the q_nope dims before `offset` pass through bit-exact. Golden values by
// hand at positions 1 and 40,000 (angles in double), two heads of D = 7 with R = 4 at offset 3.
TEST(OpsRope, InterleavedLayoutGoldenAtPositionsAwayFromZero) {
  const int D = 7, R = 4, offset = 3, H = 2;
  const double theta = 500.0;
  RopeTable table(R, theta);
  table.ensure(40001);
  for (int pos : {1, 40000}) {
    std::vector<float> x(H * D);
    for (int i = 0; i < H * D; ++i) x[(size_t)i] = 0.25f * (float)(i + 1) * (i % 2 ? -1.0f : 1.0f);
    const std::vector<float> x0 = x;
    rope_forward(x.data(), &pos, 1, H, D, table, RopeLayout::Interleaved, offset);
    for (int h = 0; h < H; ++h) {
      const float* in = x0.data() + h * D;
      const float* out = x.data() + h * D;
      for (int i = 0; i < offset; ++i) EXPECT_EQ(out[i], in[i]) << "q_nope dim " << i;
      for (int i = 0; i < R / 2; ++i) {
        const double a = pos * std::pow(theta, -2.0 * i / R);
        const double x1 = in[offset + 2 * i], x2 = in[offset + 2 * i + 1];
        EXPECT_NEAR(out[offset + 2 * i], x1 * std::cos(a) - x2 * std::sin(a), 2e-6) << pos << " " << i;
        EXPECT_NEAR(out[offset + 2 * i + 1], x2 * std::cos(a) + x1 * std::sin(a), 2e-6) << pos << " " << i;
      }
    }
    // Not the rotate-half layout: pair 0 there would be (offset, offset + R/2).
    std::vector<float> half = x0;
    rope_forward(half.data(), &pos, 1, H, D, table, RopeLayout::RotateHalf, offset);
    EXPECT_GT(std::fabs(half[offset + 1] - x[(size_t)offset + 1]), 1e-3);
    // Backward undoes forward (the rotation is orthogonal).
    rope_backward(x.data(), &pos, 1, H, D, table, RopeLayout::Interleaved, offset);
    for (int i = 0; i < H * D; ++i) EXPECT_NEAR(x[(size_t)i], x0[(size_t)i], 1e-6);
  }
  std::vector<float> x(D, 1.0f);
  const int p = 1;
  EXPECT_THROW(rope_forward(x.data(), &p, 1, 1, D, table, RopeLayout::Interleaved, 4), Error);
}

}  // namespace
}  // namespace llm0
