// Gated DeltaNet layer (Qwen3-Next layout): forward against the double reference layer; finite
// differences of the reference for dx and every parameter by name (in_proj_qkvz, in_proj_ba,
// conv1d, dt_bias, A_log, norm, out_proj); a ramp through in_proj_qkvz / in_proj_ba checked
// channel by channel for every key and value head (the grouping by key head); cached = full for
// splits of 1, 2 (< K−1), 3, L and > L tokens, with the recurrent state's bytes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cache/recurrent_state.h"
#include "core/check.h"
#include "layers/gated_deltanet.h"
#include "ops/ref/ref_gated_deltanet.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

// Every dimension different: C 7, nk 2, nv 4 (r 2), dk 3, dv 5, K 4, L 4.
GatedDeltaNetConfig tiny_config() {
  GatedDeltaNetConfig c;
  c.linear_num_key_heads = 2, c.linear_num_value_heads = 4;
  c.linear_key_head_dim = 3, c.linear_value_head_dim = 5;
  c.linear_conv_kernel_dim = 4, c.chunk_size = 4;
  return c;
}
constexpr int kC = 7;
constexpr float kEps = 1e-6f;

struct Params {
  std::vector<float> qkvz, ba, conv, dt_bias, A_log, norm, out;
  std::vector<float>* all[7] = {&qkvz, &ba, &conv, &dt_bias, &A_log, &norm, &out};
};
const char* kNames[7] = {"in_proj_qkvz", "in_proj_ba", "conv1d", "dt_bias", "A_log", "norm",
                         "out_proj"};

Params random_params(const GatedDeltaNetConfig& c, std::mt19937& rng) {
  Params p;
  const int nv = c.linear_num_value_heads;
  p.qkvz = rand_vec((size_t)c.qkvz_rows() * kC, rng, -0.6f, 0.6f);
  p.ba = rand_vec((size_t)2 * nv * kC, rng, -0.6f, 0.6f);
  p.conv = rand_vec((size_t)c.conv_channels() * c.linear_conv_kernel_dim, rng, -0.7f, 0.7f);
  p.dt_bias = rand_vec(nv, rng, -0.5f, 0.5f);
  p.A_log = rand_vec(nv, rng, -1.0f, 0.5f);
  p.norm = rand_vec(c.linear_value_head_dim, rng, 0.5f, 1.5f);
  p.out = rand_vec((size_t)kC * c.value_dim(), rng, -0.5f, 0.5f);
  return p;
}

struct Grads {
  std::vector<float> g[7];
};

GatedDeltaNetLayer make_layer(const GatedDeltaNetConfig& c, const Params& p, Grads* gr) {
  GatedDeltaNetLayer l;
  l.cfg = c, l.C = kC, l.eps = kEps;
  l.w.in_proj_qkvz = p.qkvz.data(), l.w.in_proj_ba = p.ba.data(), l.w.conv1d = p.conv.data();
  l.w.dt_bias = p.dt_bias.data(), l.w.A_log = p.A_log.data(), l.w.norm = p.norm.data();
  l.w.out_proj = p.out.data();
  if (gr) {
    for (int i = 0; i < 7; ++i) gr->g[i].assign(p.all[i]->size(), 0.0f);
    l.w.din_proj_qkvz = gr->g[0].data(), l.w.din_proj_ba = gr->g[1].data();
    l.w.dconv1d = gr->g[2].data(), l.w.ddt_bias = gr->g[3].data(), l.w.dA_log = gr->g[4].data();
    l.w.dnorm = gr->g[5].data(), l.w.dout_proj = gr->g[6].data();
  }
  return l;
}

ref::GatedDeltaNetParams to_ref(const Params& p) {
  return {to_double(p.qkvz), to_double(p.ba), to_double(p.conv), to_double(p.dt_bias),
          to_double(p.A_log), to_double(p.norm), to_double(p.out)};
}

// Training forward into y; the saved buffer is returned so tests can read activations.
std::vector<float> run_forward(const GatedDeltaNetLayer& l, const std::vector<float>& x, int B,
                               int T, std::vector<float>& y, GatedDeltaNetSaved& s) {
  std::vector<float> buf(GatedDeltaNetSaved::floats(l.cfg, B, T));
  s.bind(buf.data(), l.cfg, B, T);
  y.assign((size_t)B * T * kC, 0.0f);
  l.forward(x.data(), B, T, nullptr, s, {}, y.data());
  return buf;
}

TEST(LayersGatedDeltaNet, ForwardMatchesReference) {
  const GatedDeltaNetConfig c = tiny_config();
  std::mt19937 rng(1);
  const Params p = random_params(c, rng);
  const GatedDeltaNetLayer l = make_layer(c, p, nullptr);
  for (int T : {1, 3, 4, 13}) {
    SCOPED_TRACE(format("T={}", T));
    const int B = 2;
    const std::vector<float> x = rand_vec((size_t)B * T * kC, rng);
    std::vector<float> y;
    GatedDeltaNetSaved s;
    const auto buf = run_forward(l, x, B, T, y, s);
    const auto want = ref::gated_deltanet_forward(to_double(x), to_ref(p), c, kC, B, T, kEps);
    EXPECT_TRUE(all_close(y, want, 1e-4, 1e-5, "y", {B, T, kC}));
  }
}

// q, k ← x / sqrt(Σx² + 1e-6) (transformers' l2norm), not llama.cpp's x / max(‖x‖, eps)
// (shared/PEERS.md): on a tiny activation (in_proj_qkvz scaled by 1e-3) the two differ by ~10%,
// and the layer follows transformers — the saved q, k from the conv output `act`, and the output
// against the double reference, which uses the same rule.
TEST(LayersGatedDeltaNet, L2NormIsTransformersRuleOnTinyVectors) {
  const GatedDeltaNetConfig c = tiny_config();
  std::mt19937 rng(4);
  Params p = random_params(c, rng);
  for (float& w : p.qkvz) w *= 1e-3f;
  const GatedDeltaNetLayer l = make_layer(c, p, nullptr);
  const int B = 1, T = 6, nk = 2, dk = 3;
  const std::vector<float> x = rand_vec((size_t)B * T * kC, rng);
  std::vector<float> y;
  GatedDeltaNetSaved s;
  const auto buf = run_forward(l, x, B, T, y, s);
  double worst_llama = 0;  // largest relative gap to llama.cpp's rule seen
  for (int n = 0; n < B * T; ++n)
    for (int part = 0; part < 2; ++part)
      for (int g = 0; g < nk; ++g) {
        const float* a = s.act + (size_t)n * c.conv_channels() + part * c.key_dim() + g * dk;
        const float* got = (part == 0 ? s.q : s.k) + ((size_t)n * nk + g) * dk;
        double ss = 0;
        for (int i = 0; i < dk; ++i) ss += (double)a[i] * a[i];
        const double scale = part == 0 ? 1.0 / std::sqrt((double)dk) : 1.0;
        for (int i = 0; i < dk; ++i) {
          const double want = a[i] / std::sqrt(ss + 1e-6) * scale;
          const double llama = a[i] / std::max(std::sqrt(ss), 1e-6) * scale;
          EXPECT_NEAR(got[i], want, 1e-6 * std::fabs(want) + 1e-9) << n << " " << part << " " << g;
          worst_llama = std::max(worst_llama, std::fabs(llama - want) / std::fabs(want));
        }
      }
  EXPECT_GT(worst_llama, 0.05) << "the activations are not small enough to tell the rules apart";
  const auto ref = ref::gated_deltanet_forward(to_double(x), to_ref(p), c, kC, B, T, kEps);
  EXPECT_TRUE(all_close(y, ref, 1e-4, 1e-6, "y", {B, T, kC}));
}

TEST(LayersGatedDeltaNet, BackwardMatchesFiniteDifferencesPerTensor) {
  const GatedDeltaNetConfig c = tiny_config();
  const int B = 2, T = 9;
  std::mt19937 rng(2);
  Params p = random_params(c, rng);
  Grads gr;
  const GatedDeltaNetLayer l = make_layer(c, p, &gr);
  const std::vector<float> x = rand_vec((size_t)B * T * kC, rng);
  const std::vector<float> r = test::upstream(x.size(), rng);
  std::vector<float> y;
  GatedDeltaNetSaved s;
  const auto buf = run_forward(l, x, B, T, y, s);
  std::vector<float> gbuf(GatedDeltaNetGradScratch::floats(c, B * T)), dx(x.size());
  GatedDeltaNetGradScratch g;
  g.bind(gbuf.data(), c, B * T);
  l.backward(dx.data(), r.data(), x.data(), B, T, nullptr, s, g);

  ref::GatedDeltaNetParams rp = to_ref(p);
  std::vector<double> xd = to_double(x);
  auto loss = [&] {
    const auto yd = ref::gated_deltanet_forward(xd, rp, c, kC, B, T, kEps);
    double L = 0;
    for (size_t i = 0; i < yd.size(); ++i) L += r[i] * yd[i];
    return L;
  };
  EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), 1e-3, 1e-4, "dx"));
  std::vector<double>* rparams[7] = {&rp.in_proj_qkvz, &rp.in_proj_ba, &rp.conv1d, &rp.dt_bias,
                                     &rp.A_log, &rp.norm, &rp.out_proj};
  for (int i = 0; i < 7; ++i)
    EXPECT_TRUE(all_close(gr.g[i], test::fd_grad(*rparams[i], loss), 1e-3, 1e-4, kNames[i]));
}

// in_proj_qkvz row p outputs p + 1 and in_proj_ba row p outputs −(p + 1) (x = e_0): every conv
// channel and every z / b / a must hold the row the Qwen3-Next grouping assigns to it.
TEST(LayersGatedDeltaNet, RampShowsTheGroupingByKeyHead) {
  const GatedDeltaNetConfig c = tiny_config();
  std::mt19937 rng(3);
  Params p = random_params(c, rng);
  std::fill(p.qkvz.begin(), p.qkvz.end(), 0.0f);
  std::fill(p.ba.begin(), p.ba.end(), 0.0f);
  for (int row = 0; row < c.qkvz_rows(); ++row) p.qkvz[(size_t)row * kC] = (float)(row + 1);
  for (int row = 0; row < 2 * c.linear_num_value_heads; ++row)
    p.ba[(size_t)row * kC] = -(float)(row + 1);
  const GatedDeltaNetLayer l = make_layer(c, p, nullptr);
  std::vector<float> x(kC, 0.0f), y;
  x[0] = 1.0f;
  GatedDeltaNetSaved s;
  const auto buf = run_forward(l, x, 1, 1, y, s);
  const int nk = c.linear_num_key_heads, nv = c.linear_num_value_heads, r = nv / nk;
  const int dk = c.linear_key_head_dim, dv = c.linear_value_head_dim;
  const int group = 2 * dk + 2 * r * dv;  // rows per key head: [q | k | v (r·dv) | z (r·dv)]
  for (int g = 0; g < nk; ++g)
    for (int i = 0; i < dk; ++i) {
      EXPECT_EQ(s.mixed[g * dk + i], g * group + i + 1) << "q of key head " << g;
      EXPECT_EQ(s.mixed[nk * dk + g * dk + i], g * group + dk + i + 1) << "k of key head " << g;
    }
  for (int h = 0; h < nv; ++h) {
    const int base = (h / r) * group + 2 * dk + (h % r) * dv;
    for (int j = 0; j < dv; ++j) {
      EXPECT_EQ(s.mixed[2 * nk * dk + h * dv + j], base + j + 1) << "v of value head " << h;
      EXPECT_EQ(s.z[h * dv + j], base + r * dv + j + 1) << "z of value head " << h;
    }
    const float b = -(float)((h / r) * 2 * r + h % r + 1), a = b - (float)r;
    EXPECT_FLOAT_EQ(s.beta[h], 1.0f / (1.0f + std::exp(-b))) << "b of value head " << h;
    EXPECT_NEAR(s.g[h], -std::exp(p.A_log[h]) * std::log1p(std::exp(a + p.dt_bias[h])), 1e-6)
        << "a of value head " << h;
  }
}

TEST(LayersGatedDeltaNet, CachedEqualsFullForward) {
  const GatedDeltaNetConfig c = tiny_config();
  std::mt19937 rng(4);
  const Params p = random_params(c, rng);
  const GatedDeltaNetLayer l = make_layer(c, p, nullptr);
  // Prefill 6, then 1, 2 and 1 (< K−1 = 3: the window mixes old and new rows), 3, L = 4, > L,
  // then single tokens.
  const std::vector<int> splits = {6, 1, 2, 1, 3, 4, 9, 1, 1, 1};
  int T = 0;
  for (int n : splits) T += n;
  const std::vector<float> x = rand_vec((size_t)T * kC, rng);
  std::vector<float> y_full;
  GatedDeltaNetSaved s;
  const auto buf = run_forward(l, x, 1, T, y_full, s);
  RecurrentState cache(64, c);
  const size_t bytes = (size_t)(c.linear_num_value_heads * c.linear_key_head_dim *
                                    c.linear_value_head_dim +
                                (c.linear_conv_kernel_dim - 1) * c.conv_channels()) * 4;
  EXPECT_EQ(cache.bytes_in_use(), bytes);
  std::vector<float> y(x.size());
  WorkCounters counters;
  int pos = 0;
  for (int n : splits) {
    std::vector<float> sbuf(GatedDeltaNetSaved::floats(c, 1, n));
    GatedDeltaNetSaved si;
    si.bind(sbuf.data(), c, 1, n);
    const BatchSegment seg{0, n, pos, &cache};  // BLAS order: the chunked form for n > 1
    l.forward_cached(x.data() + (size_t)pos * kC, n, nullptr, std::span(&seg, 1), si,
                     InferOptions{}, y.data() + (size_t)pos * kC, counters);
    pos += n;
    EXPECT_EQ(cache.length(), pos);
    EXPECT_EQ(cache.bytes_in_use(), bytes) << "the state does not grow with the context";
  }
  EXPECT_TRUE(all_close(y, y_full, 1e-4, 1e-5, "y cached", {T, kC}));
  // A position that is not the cache's length is refused.
  std::vector<float> sbuf(GatedDeltaNetSaved::floats(c, 1, 1));
  GatedDeltaNetSaved si;
  si.bind(sbuf.data(), c, 1, 1);
  const BatchSegment wrong{0, 1, pos + 1, &cache};
  EXPECT_THROW(l.forward_cached(x.data(), 1, nullptr, std::span(&wrong, 1), si, InferOptions{},
                                y.data(), counters),
               Error);
}

}  // namespace
}  // namespace llm0
