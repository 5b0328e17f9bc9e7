// Attention op with a sliding window and sinks (issue: sinks and sliding-window layers): the
// visible keys of every row enumerated for T = W-1, W, W+1, 2W+3 against the rule "i sees j iff
// j <= i and j > i - W" (one-hot values read the weights out of the kernel); zero queries average
// exactly the visible keys; sinks in closed form (zero queries, V all ones, sinks [0, ln 4] give
// n / (n + e^sink)); fast vs the double reference with windows and sinks across the 64-row block;
// backward (dq, dk, dv and the sink logits) vs central finite differences, also in a sliding
// layer; the constant-V trick (KV head j filled with j + 1) in a sliding GQA prefill and decode.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/threads.h"
#include "ops/attention.h"
#include "ops/ref/ref_attention.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

AttentionDims make(int B, int Tq, int Tk, int H, int Hkv, int D, int Dv, int q_offset, int W) {
  AttentionDims d;
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.H = H, d.Hkv = Hkv, d.D = D, d.Dv = Dv, d.q_offset = q_offset;
  d.scale = 1.0f / std::sqrt((float)D), d.window = W;
  return d;
}

std::string describe(const AttentionDims& d) {
  return format("B={} Tq={} Tk={} H={} Hkv={} D={} Dv={} q_offset={} W={} sinks={}", d.B, d.Tq,
                d.Tk, d.H, d.Hkv, d.D, d.Dv, d.q_offset, d.window, d.sinks != nullptr);
}

// Weights of row t, read out of the kernel: with V = one-hot of the key position (Dv = Tk),
// out[t] = Σ_j w_tj e_j = w_t.
std::vector<float> weights_of(const AttentionDims& d0, const std::vector<float>& q,
                              const std::vector<float>& k) {
  AttentionDims d = d0;
  d.Dv = d.Tk;
  std::vector<float> v((size_t)d.Tk * d.Hkv * d.Tk, 0.0f);
  for (int j = 0; j < d.Tk; ++j)
    for (int g = 0; g < d.Hkv; ++g) v[((size_t)j * d.Hkv + g) * d.Tk + j] = 1.0f;
  std::vector<float> out((size_t)d.Tq * d.H * d.Tk);
  attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);
  return out;  // [Tq, H, Tk]
}

TEST(OpsAttentionWindow, VisibleKeysFollowTheRule) {
  const int W = 5;
  for (int T : {W - 1, W, W + 1, 2 * W + 3}) {
    for (bool zero_q : {true, false}) {
      const AttentionDims d = make(1, T, T, 3, 1, 4, 1, 0, W);
      SCOPED_TRACE(describe(d) + (zero_q ? " zero queries" : " random queries"));
      std::mt19937 rng(5);
      std::vector<float> q = rand_vec((size_t)T * d.H * d.D, rng, -2, 2);
      if (zero_q) std::fill(q.begin(), q.end(), 0.0f);
      const std::vector<float> k = rand_vec((size_t)T * d.D, rng, -2, 2);
      const std::vector<float> w = weights_of(d, q, k);
      for (int i = 0; i < T; ++i)
        for (int h = 0; h < d.H; ++h) {
          double sum = 0;
          int n = 0;
          for (int j = 0; j < T; ++j) {
            const float wij = w[((size_t)i * d.H + h) * T + j];
            const bool visible = j <= i && j > i - W;  // the rule, written out
            if (visible) {
              EXPECT_GT(wij, 0.0f) << "row " << i << " key " << j << " head " << h;
            } else {
              EXPECT_EQ(wij, 0.0f) << "row " << i << " key " << j << " head " << h;
            }
            sum += wij, n += visible;
          }
          EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << i;
          EXPECT_EQ(n, std::min(i + 1, W)) << "row " << i;
          if (zero_q) {  // uniform over exactly the visible keys
            for (int j = std::max(0, i - W + 1); j <= i; ++j)
              EXPECT_NEAR(w[((size_t)i * d.H + h) * T + j], 1.0 / n, 1e-7) << i << "," << j;
          }
        }
      // The count: one score per visible pair.
      std::vector<float> out((size_t)T * d.H), v((size_t)T, 1.0f);
      uint64_t want = 0;
      for (int i = 0; i < T; ++i) want += (uint64_t)std::min(i + 1, W) * d.H;
      EXPECT_EQ(attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d), want);
    }
  }
}

// gpt-oss sinks: zero queries, V all ones, sinks [0, ln 4]: n visible keys each have e^0 = 1, the
// sink e^sink, so every output element is n / (n + e^sink); with a window n = min(i + 1, W).
TEST(OpsAttentionWindow, SinksClosedForm) {
  const float sinks[2] = {0.0f, std::log(4.0f)};
  for (int W : {0, 3}) {
    AttentionDims d = make(1, 9, 9, 2, 1, 3, 2, 0, W);
    d.sinks = sinks;
    SCOPED_TRACE(describe(d));
    std::vector<float> q((size_t)9 * 2 * 3, 0.0f), k((size_t)9 * 3, 0.7f), v((size_t)9 * 2, 1.0f);
    std::vector<float> out((size_t)9 * 2 * 2), lse((size_t)2 * 9);
    attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
    for (int i = 0; i < 9; ++i)
      for (int h = 0; h < 2; ++h) {
        const double n = W ? std::min(i + 1, W) : i + 1, e = h == 0 ? 1.0 : 4.0;
        for (int c = 0; c < 2; ++c)
          EXPECT_NEAR(out[((size_t)i * 2 + h) * 2 + c], n / (n + e), 1e-6) << i << " " << h;
        EXPECT_NEAR(lse[(size_t)h * 9 + i], std::log(n + e), 1e-6);  // the sink is in lse
      }
  }
}

// A row whose scores are all far below the sink gives ~0 output and no NaN.
TEST(OpsAttentionWindow, HugeSinkGivesZeroNotNaN) {
  const float sinks[1] = {1e4f};
  AttentionDims d = make(1, 4, 4, 1, 1, 2, 2, 0, 2);
  d.sinks = sinks;
  std::vector<float> q(8, 1.0f), k(8, 1.0f), v(8, 1.0f), out(8), lse(4);
  attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
  for (float o : out) EXPECT_EQ(o, 0.0f);
  for (float l : lse) EXPECT_FLOAT_EQ(l, 1e4f);
}

struct Case {
  int B, Tq, Tk, H, Hkv, D, Dv, q_offset, W;
  bool sinks;
};

// Across the 64-row block, windows smaller and larger than a block, chunks at an offset.
const Case kForwardCases[] = {
    {1, 1, 1, 1, 1, 1, 1, 0, 1, false},     {2, 13, 13, 4, 2, 8, 6, 0, 4, true},
    {1, 7, 7, 6, 2, 10, 6, 0, 7, false},    {1, 7, 7, 6, 3, 5, 4, 0, 8, true},
    {1, 1, 38, 4, 2, 16, 12, 37, 5, true},  {2, 3, 45, 6, 3, 8, 9, 42, 11, false},
    {1, 130, 130, 3, 1, 6, 5, 0, 20, true}, {1, 130, 130, 2, 2, 4, 3, 0, 70, false},
    {1, 65, 100, 2, 2, 4, 4, 35, 33, true}, {2, 70, 70, 4, 1, 3, 5, 0, 0, true},
    {1, 66, 70, 4, 2, 3, 3, 4, 64, true},
};

TEST(OpsAttentionWindow, ForwardMatchesReference) {
  unsigned seed = 300;
  for (const Case& c : kForwardCases) {
    AttentionDims d = make(c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D, c.Dv, c.q_offset, c.W);
    std::mt19937 rng(seed++);
    const std::vector<float> sinks = rand_vec((size_t)c.H, rng, -1.0f, 2.0f);
    if (c.sinks) d.sinks = sinks.data();
    SCOPED_TRACE(describe(d));
    const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -2, 2);
    const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -2, 2);
    const auto v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng);
    std::vector<float> out((size_t)d.B * d.Tq * d.H * d.Dv), lse((size_t)d.B * d.H * d.Tq);
    const uint64_t n = attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
    const auto qd = to_double(q), kd = to_double(k), vd = to_double(v), sd = to_double(sinks);
    std::vector<double> out_r(out.size()), lse_r(lse.size());
    const uint64_t n_r = ref::attention_forward(out_r.data(), lse_r.data(), qd.data(), kd.data(),
                                                vd.data(), d, c.sinks ? sd.data() : nullptr);
    EXPECT_EQ(n, n_r);
    EXPECT_TRUE(all_close(out, out_r, 1e-5, 1e-5, "out", {d.B, d.Tq, d.H, d.Dv}));
    EXPECT_TRUE(all_close(lse, lse_r, 1e-5, 1e-5, "lse", {d.B, d.H, d.Tq}));
  }
}

// B, Tq, Tk, H, Hkv, D, Dv, q_offset, W, sinks (backward needs q_offset + Tq == Tk).
const Case kBackwardCases[] = {
    {1, 7, 7, 4, 2, 5, 3, 0, 3, false},   {2, 6, 6, 3, 3, 4, 4, 0, 2, true},
    {1, 9, 9, 6, 2, 3, 2, 0, 0, true},    {1, 3, 8, 4, 2, 3, 5, 5, 4, true},
    {2, 5, 5, 2, 1, 2, 3, 0, 1, true},    {1, 70, 70, 2, 1, 2, 2, 0, 9, true},
};

TEST(OpsAttentionWindow, BackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  unsigned seed = 400;
  for (const Case& c : kBackwardCases) {
    AttentionDims d = make(c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D, c.Dv, c.q_offset, c.W);
    std::mt19937 rng(seed++);
    const std::vector<float> sinks = rand_vec((size_t)c.H, rng, -0.5f, 1.5f);
    if (c.sinks) d.sinks = sinks.data();
    SCOPED_TRACE(describe(d));
    const auto q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -1.5f, 1.5f);
    const auto k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -1.5f, 1.5f);
    const auto v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng);
    std::vector<float> out((size_t)d.B * d.Tq * d.H * d.Dv), lse((size_t)d.B * d.H * d.Tq);
    attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
    const std::vector<float> r = test::upstream(out.size(), rng);
    std::vector<float> dq(q.size(), nan), dk(k.size(), nan), dv(v.size(), nan);
    std::vector<float> dsinks((size_t)c.H, 0.25f);  // accumulates: starts at 0.25
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), q.data(), k.data(), v.data(),
                       out.data(), lse.data(), d, dsinks.data());
    auto qd = to_double(q), kd = to_double(k), vd = to_double(v), sd = to_double(sinks);
    const auto rd = to_double(r);
    std::vector<double> od(out.size());
    auto loss = [&] {
      ref::attention_forward(od.data(), nullptr, qd.data(), kd.data(), vd.data(), d,
                             c.sinks ? sd.data() : nullptr);
      return test::dot(rd, od);
    };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dq, test::fd_grad(qd, loss), kGradRtol, kGradAtol, "dq"));
    EXPECT_TRUE(all_close(dk, test::fd_grad(kd, loss), kGradRtol, kGradAtol, "dk"));
    EXPECT_TRUE(all_close(dv, test::fd_grad(vd, loss), kGradRtol, kGradAtol, "dv"));
    std::vector<double> want = test::fd_grad(sd, loss);
    for (double& x : want) x += c.sinks ? 0.25 : 0.0;
    if (!c.sinks) want.assign((size_t)c.H, 0.25);  // untouched without sinks
    EXPECT_TRUE(all_close(dsinks, want, kGradRtol, kGradAtol, "dsinks"));
  }
}

// TESTING.md family 3 in a sliding GQA layer: V of KV head j is the constant j + 1, so each query
// head's output names the KV head it read (h / (H / Hkv)), in prefill and in a decode step far
// past the window.
TEST(OpsAttentionWindow, ConstantValuesNameTheKvHeadInSlidingLayers) {
  const int H = 6, Hkv = 3, D = 4, Dv = 5, W = 4;
  for (const auto& [Tq, Tk] : {std::pair{11, 11}, std::pair{1, 40}}) {
    AttentionDims d = make(1, Tq, Tk, H, Hkv, D, Dv, Tk - Tq, W);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(9);
    const auto q = rand_vec((size_t)Tq * H * D, rng, -2, 2);
    const auto k = rand_vec((size_t)Tk * Hkv * D, rng, -2, 2);
    std::vector<float> v((size_t)Tk * Hkv * Dv);
    for (int j = 0; j < Tk; ++j)
      for (int g = 0; g < Hkv; ++g)
        for (int c = 0; c < Dv; ++c) v[((size_t)j * Hkv + g) * Dv + c] = (float)(g + 1);
    std::vector<float> out((size_t)Tq * H * Dv);
    attention_forward(out.data(), nullptr, q.data(), k.data(), v.data(), d);
    for (int t = 0; t < Tq; ++t)
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < Dv; ++c)
          EXPECT_NEAR(out[((size_t)t * H + h) * Dv + c], h / (H / Hkv) + 1, 1e-5) << t << " " << h;
  }
}

// Decode with more threads than (b, KV head) pairs: the group's query rows are split among the
// threads (uneven splits: group 5 over 2 and 3 threads); same results as the double reference.
TEST(OpsAttentionWindow, DecodeSplitAcrossThreadsMatchesReference) {
  const int saved = num_threads();
  for (int threads : {2, 3})
    for (const auto& [H, Hkv] : {std::pair{8, 1}, std::pair{5, 1}, std::pair{6, 2}}) {
      set_num_threads(threads);
      AttentionDims d = make(1, 1, 3000, H, Hkv, 20, 12, 2999, 0);
      std::mt19937 rng(41);
      const std::vector<float> sinks = rand_vec((size_t)H, rng, -1.0f, 1.0f);
      d.sinks = sinks.data();
      SCOPED_TRACE(describe(d) + format(" threads={}", threads));
      const auto q = rand_vec((size_t)H * d.D, rng, -2, 2);
      const auto k = rand_vec((size_t)d.Tk * Hkv * d.D, rng, -2, 2);
      const auto v = rand_vec((size_t)d.Tk * Hkv * d.Dv, rng);
      std::vector<float> out((size_t)H * d.Dv), lse((size_t)H);
      attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), d);
      std::vector<double> out_r(out.size()), lse_r(lse.size());
      const auto qd = to_double(q), kd = to_double(k), vd = to_double(v), sd = to_double(sinks);
      ref::attention_forward(out_r.data(), lse_r.data(), qd.data(), kd.data(), vd.data(), d,
                             sd.data());
      EXPECT_TRUE(all_close(out, out_r, 1e-5, 1e-5, "out", {H, d.Dv}));
      EXPECT_TRUE(all_close(lse, lse_r, 1e-5, 1e-5, "lse", {H}));
    }
  set_num_threads(saved);
}

TEST(OpsAttentionWindow, NegativeWindowThrows) {
  std::vector<float> buf(64, 0.0f);
  const AttentionDims d = make(1, 2, 2, 1, 1, 2, 2, 0, -1);
  EXPECT_THROW(attention_forward(buf.data(), nullptr, buf.data(), buf.data(), buf.data(), d),
               Error);
}

}  // namespace
}  // namespace llm0
