// Grouped KV heads are a memory saving, not a different function: MQA (Hkv = 1) and GQA
// (Hkv = 2) give exactly the outputs of MHA whose KV heads are the shared heads repeated
// consecutively (HF repeat_kv: query head h reads KV head h / (H / Hkv)).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/attention.h"

using namespace llm0;

namespace {
std::vector<float> randn(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// [T, Hkv, D] -> [T, H, D] with head h = source head h / (H / Hkv).
std::vector<float> repeat_kv(const std::vector<float>& x, int T, int Hkv, int H, int D) {
  std::vector<float> y((size_t)T * H * D);
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < D; ++d)
        y[((size_t)t * H + h) * D + d] = x[((size_t)t * Hkv + h / (H / Hkv)) * D + d];
  return y;
}
}  // namespace

TEST(OpsAttentionGrouping, MqaAndGqaEqualMhaWithRepeatedKvHeads) {
  const int T = 70, H = 6, D = 5, Dv = 7;  // T > 64: two query blocks
  for (int Hkv : {1, 2, 3}) {
    const auto q = randn((size_t)T * H * D, 1), k = randn((size_t)T * Hkv * D, 2);
    const auto v = randn((size_t)T * Hkv * Dv, 3);
    AttentionDims g;
    g.Tq = g.Tk = T, g.H = H, g.Hkv = Hkv, g.D = D, g.Dv = Dv, g.scale = 1.0f / std::sqrt(5.0f);
    AttentionDims m = g;
    m.Hkv = H;
    std::vector<float> out_g((size_t)T * H * Dv), out_m(out_g.size());
    attention_forward(out_g.data(), nullptr, q.data(), k.data(), v.data(), g);
    const auto k_rep = repeat_kv(k, T, Hkv, H, D), v_rep = repeat_kv(v, T, Hkv, H, Dv);
    attention_forward(out_m.data(), nullptr, q.data(), k_rep.data(), v_rep.data(), m);
    for (size_t i = 0; i < out_g.size(); ++i)
      ASSERT_NEAR(out_g[i], out_m[i], 1e-6f) << "Hkv=" << Hkv << " at " << i;
  }
}
