// Attention op: fast forward vs the double reference over a shape table (T=1, odd sizes, every
// dim different, MHA / GQA / MQA, D != Dv, q_offset > 0, T around the 64-row block), fast
// backward vs central finite differences of the reference forward, and the score count.
// Closed-form and invariant checks live in test_ops_attention_invariants.cpp.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/attention.h"
#include "ops/ref/ref_attention.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

struct Case {
  int B, Tq, Tk, H, Hkv, D, Dv, q_offset;
};

AttentionDims dims_of(const Case& c) {
  AttentionDims d;
  d.B = c.B, d.Tq = c.Tq, d.Tk = c.Tk, d.H = c.H, d.Hkv = c.Hkv, d.D = c.D, d.Dv = c.Dv;
  d.q_offset = c.q_offset;
  d.scale = 1.0f / std::sqrt((float)c.D);
  return d;
}

std::string describe(const AttentionDims& d) {
  return format("B={} Tq={} Tk={} H={} Hkv={} D={} Dv={} q_offset={}", d.B, d.Tq, d.Tk, d.H,
                d.Hkv, d.D, d.Dv, d.q_offset);
}

// B, Tq, Tk, H, Hkv, D, Dv, q_offset — like llama.cpp test-backend-ops' vars() list.
const Case kForwardCases[] = {
    {1, 1, 1, 1, 1, 1, 1, 0},       // smallest
    {2, 13, 13, 4, 2, 8, 8, 0},     // GQA 4/2
    {1, 7, 7, 6, 2, 10, 6, 0},      // GQA 6/2, D != Dv
    {2, 5, 5, 3, 3, 7, 5, 0},       // MHA, odd sizes
    {3, 9, 9, 5, 1, 4, 3, 0},       // MQA
    {1, 1, 38, 4, 2, 16, 12, 37},   // decode at q_offset 37
    {2, 3, 45, 6, 3, 8, 9, 42},     // chunk of 3 after 42 cached
    {1, 4, 20, 2, 1, 4, 4, 5},      // keys beyond q_offset + Tq are never visible
    {1, 63, 63, 2, 1, 5, 7, 0},     // around the 64-row block
    {1, 64, 64, 3, 3, 6, 2, 0},
    {2, 65, 65, 4, 2, 3, 5, 0},
    {1, 130, 130, 3, 1, 6, 5, 0},
    {1, 65, 100, 2, 2, 4, 4, 35},   // two blocks with an offset
    {1, 130, 131, 6, 2, 5, 3, 1},
};

struct Inputs {
  std::vector<float> q, k, v;  // [B, Tq, H, D], [B, Tk, Hkv, D], [B, Tk, Hkv, Dv]
};

Inputs random_inputs(const AttentionDims& d, std::mt19937& rng, float qk_range) {
  Inputs in;
  in.q = rand_vec((size_t)d.B * d.Tq * d.H * d.D, rng, -qk_range, qk_range);
  in.k = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.D, rng, -qk_range, qk_range);
  in.v = rand_vec((size_t)d.B * d.Tk * d.Hkv * d.Dv, rng);
  return in;
}

TEST(OpsAttention, ForwardMatchesReference) {
  unsigned seed = 100;
  for (const Case& c : kForwardCases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(seed++);
    const Inputs in = random_inputs(d, rng, 2.0f);
    std::vector<float> out((size_t)d.B * d.Tq * d.H * d.Dv), lse((size_t)d.B * d.H * d.Tq);
    const uint64_t n = attention_forward(out.data(), lse.data(), in.q.data(), in.k.data(),
                                         in.v.data(), d);
    const auto qd = to_double(in.q), kd = to_double(in.k), vd = to_double(in.v);
    std::vector<double> out_r(out.size()), lse_r(lse.size());
    const uint64_t n_r = ref::attention_forward(out_r.data(), lse_r.data(), qd.data(), kd.data(),
                                                vd.data(), d);
    EXPECT_EQ(n, n_r) << "score count differs from the reference's naive count";
    EXPECT_TRUE(all_close(out, out_r, 1e-5, 1e-5, "out", {d.B, d.Tq, d.H, d.Dv}));
    EXPECT_TRUE(all_close(lse, lse_r, 1e-5, 1e-5, "lse", {d.B, d.H, d.Tq}));
    // lse may be null at inference; the output must not change.
    std::vector<float> out2(out.size());
    attention_forward(out2.data(), nullptr, in.q.data(), in.k.data(), in.v.data(), d);
    EXPECT_TRUE(all_close(out2, out, 0.0, 0.0, "out without lse", {d.B, d.Tq, d.H, d.Dv}));
  }
}

TEST(OpsAttention, ReturnValueCountsCausalPairs) {
  for (const Case& c : kForwardCases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(7);
    const Inputs in = random_inputs(d, rng, 1.0f);
    std::vector<float> out((size_t)d.B * d.Tq * d.H * d.Dv);
    const uint64_t n = attention_forward(out.data(), nullptr, in.q.data(), in.k.data(),
                                         in.v.data(), d);
    // Closed form of B·H·Σ_{t<Tq} (q_offset + t + 1).
    const uint64_t Tq = (uint64_t)d.Tq, pairs = Tq * (uint64_t)d.q_offset + Tq * (Tq + 1) / 2;
    EXPECT_EQ(n, (uint64_t)d.B * (uint64_t)d.H * pairs);
  }
}

// Rows of a chunk at q_offset equal the same rows of a full forward over all Tk keys (the
// op-level form of "cache = recompute"), across the 64-row block boundary.
TEST(OpsAttention, ChunkAtOffsetEqualsFullRows) {
  const Case full_c{2, 70, 70, 6, 2, 5, 3, 0};
  const AttentionDims full = dims_of(full_c);
  std::mt19937 rng(11);
  const Inputs in = random_inputs(full, rng, 2.0f);
  std::vector<float> out_full((size_t)full.B * full.Tq * full.H * full.Dv);
  attention_forward(out_full.data(), nullptr, in.q.data(), in.k.data(), in.v.data(), full);
  for (int q_offset : {0, 1, 37, 63, 64, 69}) {
    for (int Tq : {1, 3, 70 - q_offset}) {
      if (q_offset + Tq > 70) continue;
      SCOPED_TRACE(format("q_offset={} Tq={}", q_offset, Tq));
      AttentionDims d = full;
      d.Tq = Tq, d.q_offset = q_offset;
      const int HD = d.H * d.D, HDv = d.H * d.Dv;
      std::vector<float> q((size_t)d.B * Tq * HD), out((size_t)d.B * Tq * HDv), want(out.size());
      for (int b = 0; b < d.B; ++b)
        for (int t = 0; t < Tq; ++t) {
          for (int i = 0; i < HD; ++i)
            q[((size_t)b * Tq + t) * HD + i] = in.q[((size_t)b * 70 + q_offset + t) * HD + i];
          for (int i = 0; i < HDv; ++i)
            want[((size_t)b * Tq + t) * HDv + i] =
                out_full[((size_t)b * 70 + q_offset + t) * HDv + i];
        }
      attention_forward(out.data(), nullptr, q.data(), in.k.data(), in.v.data(), d);
      EXPECT_TRUE(all_close(out, want, 1e-5, 1e-6, "out", {d.B, Tq, d.H, d.Dv}));
    }
  }
}

// B, Tq, Tk, H, Hkv, D, Dv, q_offset (backward needs q_offset + Tq == Tk).
const Case kBackwardCases[] = {
    {1, 1, 1, 1, 1, 1, 1, 0},   {2, 5, 5, 6, 2, 3, 4, 0},     {1, 7, 7, 4, 2, 5, 3, 0},
    {2, 6, 6, 3, 3, 4, 4, 0},   {1, 9, 9, 5, 1, 3, 2, 0},     {1, 3, 8, 4, 2, 3, 5, 5},
    {2, 3, 8, 4, 2, 3, 5, 5},   {3, 2, 6, 2, 1, 2, 3, 4},
    {1, 65, 65, 2, 1, 3, 2, 0}, {1, 130, 130, 2, 1, 2, 3, 0}, {1, 66, 70, 2, 1, 2, 2, 4},
};

TEST(OpsAttention, BackwardMatchesFiniteDifferences) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  unsigned seed = 200;
  for (const Case& c : kBackwardCases) {
    const AttentionDims d = dims_of(c);
    SCOPED_TRACE(describe(d));
    std::mt19937 rng(seed++);
    const Inputs in = random_inputs(d, rng, 1.5f);
    std::vector<float> out((size_t)d.B * d.Tq * d.H * d.Dv), lse((size_t)d.B * d.H * d.Tq);
    attention_forward(out.data(), lse.data(), in.q.data(), in.k.data(), in.v.data(), d);
    const std::vector<float> r = test::upstream(out.size(), rng);  // dout
    // Gradients are overwritten: pre-fill with NaN so a missed element shows.
    std::vector<float> dq(in.q.size(), nan), dk(in.k.size(), nan), dv(in.v.size(), nan);
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), in.q.data(), in.k.data(),
                       in.v.data(), out.data(), lse.data(), d);

    auto qd = to_double(in.q), kd = to_double(in.k), vd = to_double(in.v);
    const auto rd = to_double(r);
    std::vector<double> od(out.size());
    auto loss = [&] {
      ref::attention_forward(od.data(), nullptr, qd.data(), kd.data(), vd.data(), d);
      return test::dot(rd, od);
    };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dq, test::fd_grad(qd, loss), kGradRtol, kGradAtol, "dq",
                          {d.B, d.Tq, d.H, d.D}));
    EXPECT_TRUE(all_close(dk, test::fd_grad(kd, loss), kGradRtol, kGradAtol, "dk",
                          {d.B, d.Tk, d.Hkv, d.D}));
    EXPECT_TRUE(all_close(dv, test::fd_grad(vd, loss), kGradRtol, kGradAtol, "dv",
                          {d.B, d.Tk, d.Hkv, d.Dv}));
  }
}

TEST(OpsAttention, BadDimsThrow) {
  std::vector<float> buf(4096, 0.0f);
  AttentionDims d = dims_of({1, 2, 2, 6, 4, 4, 4, 0});  // 6 % 4 != 0
  EXPECT_THROW(attention_forward(buf.data(), nullptr, buf.data(), buf.data(), buf.data(), d),
               Error);
  d = dims_of({1, 3, 4, 2, 1, 4, 4, 2});  // q_offset + Tq > Tk
  EXPECT_THROW(attention_forward(buf.data(), nullptr, buf.data(), buf.data(), buf.data(), d),
               Error);
  d = dims_of({1, 2, 5, 2, 1, 4, 4, 1});  // backward needs q_offset + Tq == Tk
  EXPECT_THROW(attention_backward(buf.data(), buf.data(), buf.data(), buf.data(), buf.data(),
                                  buf.data(), buf.data(), buf.data(), buf.data(), d),
               Error);
}

}  // namespace
}  // namespace llm0
