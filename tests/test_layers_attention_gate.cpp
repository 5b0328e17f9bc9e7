// Gated attention (attn_output_gate; Qwen3-Next's full layers): with a ramp through q_proj
// (row p outputs p + 1) every head's query and gate hold the rows of the per-head interleaved
// layout [query (D) | gate (D)], for all heads; the output is o_proj(attn ⊙ σ(gate)) against the
// double attention reference on the split query and a hand-computed gate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layers/attention.h"
#include "ops/ref/ref_attention.h"
#include "test_util.h"

using namespace llm0;

namespace {

struct Buffers {
  std::vector<float> q, k, v, attn, lse, qg, gate, attn_gated;
};

ModelConfig gated_config() {
  ModelConfig c;
  c.vocab_size = 10, c.hidden_size = 7, c.intermediate_size = 3, c.num_hidden_layers = 1;
  c.num_attention_heads = 3, c.num_key_value_heads = 1, c.head_dim = 5;
  c.max_position_embeddings = 16, c.rms_norm_eps = 1e-6, c.position = PositionKind::None;
  c.attn_output_gate = true;
  c.validate();
  return c;
}

AttentionSaved bind(Buffers& b, int N, const ModelConfig& c) {
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim, KD = (size_t)c.head_dim;
  b.q.resize(N * HD), b.k.resize(N * KD), b.v.resize(N * KD), b.attn.resize(N * HD);
  b.lse.resize((size_t)N * c.num_attention_heads), b.qg.resize(N * 2 * HD);
  b.gate.resize(N * HD), b.attn_gated.resize(N * HD);
  AttentionSaved s;
  s.q = b.q.data(), s.k = b.k.data(), s.v = b.v.data(), s.attn = b.attn.data();
  s.lse = b.lse.data(), s.qg = b.qg.data(), s.gate = b.gate.data();
  s.attn_gated = b.attn_gated.data();
  return s;
}

TEST(LayersAttentionGate, RampShowsQueryAndGateInterleavedPerHead) {
  const ModelConfig c = gated_config();
  const int H = c.num_attention_heads, D = c.head_dim, C = c.hidden_size;
  std::mt19937 rng(1);
  std::vector<float> qw((size_t)2 * H * D * C, 0.0f);
  for (int row = 0; row < 2 * H * D; ++row) qw[(size_t)row * C] = (float)(row + 1);
  const std::vector<float> kw = test::rand_vec((size_t)D * C, rng), vw = kw;
  const std::vector<float> ow = test::rand_vec((size_t)C * H * D, rng);
  AttentionLayer l;
  l.cfg = &c;
  l.w.q_w = qw.data(), l.w.k_w = kw.data(), l.w.v_w = vw.data(), l.w.o_w = ow.data();
  std::vector<float> x(C, 0.0f), y(C);
  x[0] = 1.0f;
  Buffers b;
  AttentionSaved s = bind(b, 1, c);
  const int pos = 0;
  l.forward(x.data(), 1, 1, &pos, s, {}, y.data());
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < D; ++i) {
      EXPECT_EQ(b.q[h * D + i], h * 2 * D + i + 1) << "query of head " << h;
      EXPECT_EQ(b.gate[h * D + i], h * 2 * D + D + i + 1) << "gate of head " << h;
    }
}

TEST(LayersAttentionGate, OutputIsAttentionTimesSigmoidGateBeforeOProj) {
  const ModelConfig c = gated_config();
  const int H = c.num_attention_heads, D = c.head_dim, C = c.hidden_size, T = 6;
  std::mt19937 rng(2);
  const std::vector<float> qw = test::rand_vec((size_t)2 * H * D * C, rng);
  const std::vector<float> kw = test::rand_vec((size_t)D * C, rng);
  const std::vector<float> vw = test::rand_vec((size_t)D * C, rng);
  const std::vector<float> ow = test::rand_vec((size_t)C * H * D, rng);
  AttentionLayer l;
  l.cfg = &c;
  l.w.q_w = qw.data(), l.w.k_w = kw.data(), l.w.v_w = vw.data(), l.w.o_w = ow.data();
  const std::vector<float> x = test::rand_vec((size_t)T * C, rng);
  std::vector<float> y((size_t)T * C);
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[t] = t;
  Buffers b;
  AttentionSaved s = bind(b, T, c);
  l.forward(x.data(), 1, T, pos.data(), s, {}, y.data());
  // Reference: projections in double, per-head split, causal attention, gate, o_proj.
  auto proj = [&](const std::vector<float>& W, int O) {
    std::vector<double> r((size_t)T * O, 0.0);
    for (int t = 0; t < T; ++t)
      for (int o = 0; o < O; ++o)
        for (int i = 0; i < C; ++i) r[(size_t)t * O + o] += (double)x[t * C + i] * W[(size_t)o * C + i];
    return r;
  };
  const std::vector<double> qg = proj(qw, 2 * H * D), k = proj(kw, D), v = proj(vw, D);
  std::vector<double> q((size_t)T * H * D), gate(q.size()), attn(q.size());
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < D; ++i) {
        q[((size_t)t * H + h) * D + i] = qg[(size_t)t * 2 * H * D + h * 2 * D + i];
        gate[((size_t)t * H + h) * D + i] = qg[(size_t)t * 2 * H * D + h * 2 * D + D + i];
      }
  AttentionDims d;
  d.B = 1, d.Tq = T, d.Tk = T, d.H = H, d.Hkv = 1, d.D = D, d.Dv = D;
  d.scale = 1.0f / std::sqrt((float)D);
  ref::attention_forward(attn.data(), nullptr, q.data(), k.data(), v.data(), d);
  std::vector<double> want((size_t)T * C, 0.0);
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < C; ++o)
      for (int e = 0; e < H * D; ++e) {
        const size_t te = (size_t)t * H * D + e;
        want[(size_t)t * C + o] += attn[te] / (1.0 + std::exp(-gate[te])) * ow[(size_t)o * H * D + e];
      }
  EXPECT_TRUE(test::all_close(y, want, 1e-4, 1e-5, "y", {T, C}));
}

}  // namespace
