// Attention op, closed forms and invariants (TESTING.md families 3 and 4): zero queries give the
// mean of the visible V rows, constant V comes back unchanged, V of KV head j filled with j + 1
// names the KV head each query head reads (h / (H / Hkv), not h % Hkv), every output row is a
// convex combination of its visible V rows, huge or very negative scores give no NaN, and keys
// past the last visible one are never read.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/attention.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;

struct Case {
  int B, Tq, Tk, H, Hkv, D, Dv, q_offset;
};

AttentionDims dims_of(const Case& c, float scale = 0) {
  AttentionDims d;
  d.B = c.B, d.Tq = c.Tq, d.Tk = c.Tk, d.H = c.H, d.Hkv = c.Hkv, d.D = c.D, d.Dv = c.Dv;
  d.q_offset = c.q_offset;
  d.scale = scale != 0 ? scale : 1.0f / std::sqrt((float)c.D);
  return d;
}

std::string describe(const AttentionDims& d) {
  return format("B={} Tq={} Tk={} H={} Hkv={} D={} Dv={} q_offset={} scale={}", d.B, d.Tq, d.Tk,
                d.H, d.Hkv, d.D, d.Dv, d.q_offset, d.scale);
}

const Case kCases[] = {
    {1, 1, 1, 1, 1, 3, 2, 0},     {2, 7, 7, 6, 2, 5, 4, 0},    {1, 9, 9, 4, 2, 3, 6, 0},
    {1, 1, 38, 4, 2, 8, 5, 37},   {2, 3, 45, 6, 3, 4, 4, 42},  {1, 70, 70, 3, 1, 4, 3, 0},
    {1, 65, 100, 2, 2, 3, 3, 35}, {1, 5, 5, 3, 3, 2, 7, 0},
};

size_t out_size(const AttentionDims& d) { return (size_t)d.B * d.Tq * d.H * d.Dv; }
const float* v_row(const std::vector<float>& v, const AttentionDims& d, int b, int j, int g) {
  return v.data() + (((size_t)b * d.Tk + j) * d.Hkv + g) * d.Dv;  // v[b, j, g, :]
}

// Zero queries: every visible score is 0, so the weights are uniform over keys 0..q_offset+t and
// the output is the mean of those V rows; lse = log(number of visible keys).
TEST(OpsAttentionInvariants, ZeroQueriesGiveMeanOfVisibleValues) {
  for (const Case& c : kCases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(3);
    std::vector<float> q((size_t)d.B * d.Tq * d.H * d.D, 0.0f);
    const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -3, 3);
    const auto v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng);
    std::vector<float> out(out_size(d)), lse((size_t)d.B * d.H * d.Tq);
    attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
    std::vector<double> want(out.size()), want_lse(lse.size());
    const int group = d.H / d.Hkv;
    for (int b = 0; b < d.B; ++b)
      for (int t = 0; t < d.Tq; ++t)
        for (int h = 0; h < d.H; ++h) {
          const int visible = d.q_offset + t + 1;
          for (int c2 = 0; c2 < d.Dv; ++c2) {
            double s = 0;
            for (int j = 0; j < visible; ++j) s += v_row(v, d, b, j, h / group)[c2];
            want[(((size_t)b * d.Tq + t) * d.H + h) * d.Dv + c2] = s / visible;
          }
          want_lse[((size_t)b * d.H + h) * d.Tq + t] = std::log((double)visible);
        }
    EXPECT_TRUE(all_close(out, want, 1e-5, 1e-6, "out", {d.B, d.Tq, d.H, d.Dv}));
    EXPECT_TRUE(all_close(lse, want_lse, 1e-6, 1e-6, "lse", {d.B, d.H, d.Tq}));
  }
}

// Constant V (per dimension, same for every key and head): the weights sum to 1, so out = V.
TEST(OpsAttentionInvariants, ConstantValuesComeBack) {
  for (const Case& c : kCases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(5);
    const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -3, 3);
    const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -3, 3);
    const auto cv = rand_vec(d.Dv, rng, -2, 2);  // the constant row
    std::vector<float> v((size_t)d.B * d.Tk * d.Hkv * d.Dv), out(out_size(d));
    for (size_t i = 0; i < v.size(); ++i) v[i] = cv[i % d.Dv];
    attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);
    std::vector<float> want(out.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = cv[i % d.Dv];
    EXPECT_TRUE(all_close(out, want, 1e-5, 1e-6, "out", {d.B, d.Tq, d.H, d.Dv}));
  }
}

// V of KV head j is the constant j + 1, so query head h's output is (its KV head) + 1.
// Grouping is consecutive (HF repeat_kv): KV head h / (H / Hkv); the cases include ones where
// h % Hkv (interleaved grouping) names a different head.
TEST(OpsAttentionInvariants, OutputNamesTheKvHeadRead) {
  const Case cases[] = {{1, 5, 5, 6, 2, 4, 3, 0},   {2, 4, 9, 4, 2, 5, 2, 5},
                        {1, 3, 3, 6, 3, 2, 2, 0},   {1, 1, 20, 8, 4, 3, 4, 19},
                        {1, 66, 66, 6, 1, 3, 2, 0}, {1, 2, 2, 5, 5, 3, 3, 0}};
  for (const Case& c : cases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(9);
    const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -3, 3);
    const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -3, 3);
    std::vector<float> v((size_t)d.B * d.Tk * d.Hkv * d.Dv), out(out_size(d));
    for (size_t i = 0; i < v.size(); ++i) v[i] = (float)((i / d.Dv) % d.Hkv + 1);  // j + 1
    attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);
    const int group = d.H / d.Hkv;
    bool interleaved_differs = false;
    for (size_t i = 0; i < out.size(); ++i) {
      const int h = (int)((i / d.Dv) % d.H);
      const float want = (float)(h / group + 1);
      interleaved_differs |= (h % d.Hkv) != (h / group);
      ASSERT_NEAR(out[i], want, 1e-5) << "query head " << h << " at " << test::coords(i,
                  {d.B, d.Tq, d.H, d.Dv}) << " read KV head " << out[i] - 1 << ", expected "
                  << h / group << " (h / (H / Hkv))";
    }
    if (d.Hkv > 1 && d.Hkv < d.H) {
      EXPECT_TRUE(interleaved_differs) << "case cannot tell h % Hkv";
    }
  }
}

// Each output row lies in the per-dimension [min, max] of the visible V rows of its KV head.
void expect_convex(const std::vector<float>& out, const std::vector<float>& v,
                   const AttentionDims& d) {
  const int group = d.H / d.Hkv;
  for (int b = 0; b < d.B; ++b)
    for (int t = 0; t < d.Tq; ++t)
      for (int h = 0; h < d.H; ++h)
        for (int c = 0; c < d.Dv; ++c) {
          float lo = INFINITY, hi = -INFINITY;
          for (int j = 0; j <= d.q_offset + t; ++j) {
            lo = std::min(lo, v_row(v, d, b, j, h / group)[c]);
            hi = std::max(hi, v_row(v, d, b, j, h / group)[c]);
          }
          const float o = out[(((size_t)b * d.Tq + t) * d.H + h) * d.Dv + c];
          const float slack = 1e-5f * (hi - lo) + 1e-6f;
          ASSERT_TRUE(o >= lo - slack && o <= hi + slack)
              << "out[" << b << ", " << t << ", " << h << ", " << c << "] = " << o
              << " outside the visible V range [" << lo << ", " << hi << "]";
        }
}

TEST(OpsAttentionInvariants, OutputIsConvexCombinationOfVisibleValues) {
  for (const Case& c : kCases) {
    for (float scale : {0.0f, 1e4f, -1e4f}) {  // default 1/√D, then huge scores of both signs
      const AttentionDims d = dims_of(c, scale);
      SCOPED_TRACE(describe(d));
      std::mt19937 rng(13);
      const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -3, 3);
      const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -3, 3);
      const auto v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng, -5, 5);
      std::vector<float> out(out_size(d)), lse((size_t)d.B * d.H * d.Tq);
      attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
      for (float x : lse) ASSERT_TRUE(std::isfinite(x)) << "lse not finite";
      expect_convex(out, v, d);  // also rejects NaN (comparisons fail)
    }
  }
}

// Equal, hugely negative scores (about -1e4 each): exp underflows to 0 without the max shift,
// which would give 0/0. With it, the weights are uniform: out = mean of the visible V rows.
TEST(OpsAttentionInvariants, HugeEqualNegativeScoresStayUniform) {
  const AttentionDims d = dims_of({1, 6, 10, 4, 2, 4, 3, 4});
  std::mt19937 rng(17);
  std::vector<float> q((size_t)d.Tq * d.H * d.D, -100.0f), k((size_t)d.Tk * d.Hkv * d.D, 50.0f);
  const auto v = rand_vec((size_t)d.Tk * d.Hkv * d.Dv, rng);
  std::vector<float> out(out_size(d));
  attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);  // scores -1e4
  std::vector<double> want(out.size());
  for (int t = 0; t < d.Tq; ++t)
    for (int h = 0; h < d.H; ++h)
      for (int c = 0; c < d.Dv; ++c) {
        double s = 0;
        for (int j = 0; j <= d.q_offset + t; ++j) s += v_row(v, d, 0, j, h / 2)[c];
        want[((size_t)t * d.H + h) * d.Dv + c] = s / (d.q_offset + t + 1);
      }
  EXPECT_TRUE(all_close(out, want, 1e-5, 1e-6, "out", {1, d.Tq, d.H, d.Dv}));
}

// Keys at positions >= q_offset + Tq are invisible to every query: filling them with NaN must
// not reach the output.
TEST(OpsAttentionInvariants, KeysPastTheLastQueryAreNeverRead) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const AttentionDims d = dims_of({2, 66, 90, 4, 2, 3, 5, 7});  // keys 73..89 invisible
  std::mt19937 rng(19);
  const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng);
  auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng);
  auto v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng);
  std::vector<float> out(out_size(d)), out_nan(out.size());
  attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);
  for (int b = 0; b < d.B; ++b)
    for (int j = d.q_offset + d.Tq; j < d.Tk; ++j) {
      std::fill_n(k.data() + ((size_t)b * d.Tk + j) * d.Hkv * d.D, d.Hkv * d.D, nan);
      std::fill_n(v.data() + ((size_t)b * d.Tk + j) * d.Hkv * d.Dv, d.Hkv * d.Dv, nan);
    }
  attention_forward(out_nan.data(), nullptr, q.data(), k.data(), v.data(), d);
  EXPECT_TRUE(all_close(out_nan, out, 0.0, 0.0, "out", {d.B, d.Tq, d.H, d.Dv}));
}

}  // namespace
}  // namespace llm0
