// One query against cached rows (ops/attention_rows.h attend_query_rows, MLA's cached attention):
// each query head of a decode step against its KV head's rows, float32 rows and bfloat16 rows,
// against the double reference (ops/ref/ref_attention) of the same (widened) values, for MHA, GQA
// and MQA with D ≠ Dv (odd sizes: every SIMD tail), a sliding window (the rows from the first
// visible key), sinks and every BF16 kernel this CPU runs; rows given through shuffled pointers (as
// a paged cache holds them).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "ops/attention_rows.h"
#include "ops/bf16_kernels.h"
#include "ops/ref/ref_attention.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;

// Rows of a [Tk, width] matrix stored in `order` (row j at slot order[j]), as float32 and bf16.
struct Stored {
  std::vector<float> f32;
  std::vector<uint16_t> bf16;
  std::vector<const float*> p32;
  std::vector<const uint16_t*> p16;
  Stored(const std::vector<float>& m, int Tk, int width, const std::vector<int>& order)
      : f32(m.size()), bf16(m.size()) {
    for (int j = 0; j < Tk; ++j) {
      const long slot = order[(size_t)j];
      std::copy_n(m.data() + (long)j * width, width, f32.data() + slot * width);
      bf16_round(bf16.data() + slot * width, m.data() + (long)j * width, width);
    }
    for (int j = 0; j < Tk; ++j) {
      p32.push_back(f32.data() + (long)order[(size_t)j] * width);
      p16.push_back(bf16.data() + (long)order[(size_t)j] * width);
    }
  }
};

// The widened values of a bf16-rounded matrix, in double.
std::vector<double> rounded(const std::vector<float>& m) {
  std::vector<double> r(m.size());
  for (size_t i = 0; i < m.size(); ++i) r[i] = bf16_to_float(float_to_bf16(m[i]));
  return r;
}

struct Case {
  int H, Hkv, D, Dv, Tk, window;
  bool sinks;
};

TEST(OpsAttentionRows, F32AndBf16RowsMatchTheDoubleReference) {
  const Isa saved = bf16_kernel();
  const Case cases[] = {{3, 3, 13, 11, 37, 0, false},  // MHA
                        {6, 2, 17, 9, 41, 0, true},    // GQA, sinks
                        {5, 1, 33, 19, 29, 7, false},  // MQA, sliding window
                        {4, 2, 64, 64, 1, 0, false},   // first token
                        {8, 4, 64, 64, 300, 0, true}}; // long rows
  for (Isa kern : {Isa::Scalar, Isa::Avx2, Isa::Avx512,
                          Isa::Avx512Bf16}) {
    if (!bf16_kernel_supported(kern)) continue;
    set_bf16_kernel(kern);
    std::mt19937 rng(7);
    for (const Case& c : cases) {
      SCOPED_TRACE(format("kernel={} H={} Hkv={} D={} Dv={} Tk={} W={} sinks={}",
                          isa_name(kern), c.H, c.Hkv, c.D, c.Dv, c.Tk, c.window, c.sinks));
      AttentionDims d;
      d.Tk = c.Tk, d.q_offset = c.Tk - 1, d.H = c.H, d.Hkv = c.Hkv, d.D = c.D, d.Dv = c.Dv;
      d.scale = 1.0f / std::sqrt((float)c.D), d.window = c.window;
      const auto q = rand_vec((size_t)c.H * c.D, rng, -2.0f, 2.0f);
      const auto k = rand_vec((size_t)c.Tk * c.Hkv * c.D, rng, -2.0f, 2.0f);
      const auto v = rand_vec((size_t)c.Tk * c.Hkv * c.Dv, rng);
      const auto sinks = rand_vec((size_t)c.H, rng);
      if (c.sinks) d.sinks = sinks.data();
      std::vector<int> order((size_t)c.Tk);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      const Stored ks(k, c.Tk, c.Hkv * c.D, order), vs(v, c.Tk, c.Hkv * c.Dv, order);
      const std::vector<double> qd = test::to_double(q), sd = test::to_double(sinks);
      // The keys the query at q_offset sees: [j0, Tk) (all of them without a window).
      const int j0 = first_visible_key(d, d.q_offset), n = c.Tk - j0, group = c.H / c.Hkv;
      for (bool bf16 : {false, true}) {
        std::vector<double> want((size_t)c.H * c.Dv), want_lse((size_t)c.H);
        const auto kd = bf16 ? rounded(k) : test::to_double(k);
        const auto vd = bf16 ? rounded(v) : test::to_double(v);
        ref::attention_forward(want.data(), want_lse.data(), qd.data(), kd.data(), vd.data(), d,
                               c.sinks ? sd.data() : nullptr);
        std::vector<float> out((size_t)c.H * c.Dv, NAN), lse((size_t)c.H, NAN), s((size_t)n, NAN);
        const KvRowSet kr = bf16 ? KvRowSet{nullptr, ks.p16.data()} : KvRowSet{ks.p32.data(), nullptr};
        const KvRowSet vr = bf16 ? KvRowSet{nullptr, vs.p16.data()} : KvRowSet{vs.p32.data(), nullptr};
        for (int h = 0; h < c.H; ++h) {  // query head h reads KV head h / group: its row offsets
          const int g = h / group;
          lse[(size_t)h] = attend_query_rows(out.data() + (long)h * c.Dv, q.data() + (long)h * c.D,
                                             kr, (long)g * c.D, vr, (long)g * c.Dv, j0, n, c.D,
                                             c.Dv, d.scale, c.sinks ? sinks.data() + h : nullptr,
                                             s.data());
        }
        EXPECT_TRUE(all_close(out, want, 2e-5, 2e-6, bf16 ? "out bf16" : "out f32"));
        EXPECT_TRUE(all_close(lse, want_lse, 2e-6, 2e-6, bf16 ? "lse bf16" : "lse f32"));
      }
    }
  }
  set_bf16_kernel(saved);
}

}  // namespace
}  // namespace llm0
