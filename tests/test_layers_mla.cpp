// Multi-head latent attention layer (layers/mla.h) against the double reference (ops/ref/ref_mla.h),
// with dn ≠ dr ≠ dv ≠ r ≠ qr so no axis mix-up can cancel: the training forward; the backward
// (dx and every parameter) against central finite differences of the reference; both decode forms
// (absorbed, expanded) with prefill + chunks + single tokens; a hand-built one-head case whose
// attention weights are computed by hand with dn + dr ≠ r + dr (the absorbed form's scale); and
// k_pe shared by all heads while q_pe is per head. Interleaved RoPE goldens: test_ops_rope.cpp.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "layers/mla.h"
#include "ops/ref/ref_mla.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;

ModelConfig mla_config(int q_lora_rank, int H = 3) {
  ModelConfig c;
  c.model_type = "deepseek_v2";
  c.vocab_size = 61, c.hidden_size = 14, c.intermediate_size = 20, c.num_hidden_layers = 1;
  c.num_attention_heads = c.num_key_value_heads = H;
  c.max_position_embeddings = 64, c.rms_norm_eps = 1e-6, c.rope_theta = 500.0;
  c.mla = {q_lora_rank, /*r=*/11, /*dn=*/5, /*dr=*/4, /*dv=*/7};
  c.head_dim = c.mla.qk_rope_head_dim;
  c.layers.assign(1, LayerConfig{LayerKind::LatentAttention, 0});
  c.validate();
  return c;
}

// One MLA layer with its weights (float and double copies) and every buffer it needs.
struct Harness {
  ModelConfig cfg;
  RopeTable rope;
  std::map<std::string, std::vector<float>> p, grad;  // HF names without "self_attn."
  MlaLayer layer;
  int H, D, dv, r, R, qr, E;

  Harness(const ModelConfig& c, unsigned seed) : cfg(c), rope(c.mla.qk_rope_head_dim, c.rope_theta) {
    const MlaConfig& m = cfg.mla;
    H = cfg.num_attention_heads, D = m.qk_head_dim(), dv = m.v_head_dim, r = m.kv_lora_rank;
    R = r + m.qk_rope_head_dim, qr = m.q_lora_rank, E = m.qk_nope_head_dim + dv;
    const int C = cfg.hidden_size;
    std::mt19937 rng(seed);
    auto add = [&](const std::string& n, size_t size, float lo, float hi) {
      p[n] = test::rand_vec(size, rng, lo, hi), grad[n].assign(size, 0.0f);
    };
    if (qr > 0) {
      add("q_a_proj", (size_t)qr * C, -0.6f, 0.6f), add("q_a_layernorm", (size_t)qr, 0.6f, 1.4f);
      add("q_b_proj", (size_t)H * D * qr, -0.6f, 0.6f);
    } else {
      add("q_proj", (size_t)H * D * C, -0.6f, 0.6f);
    }
    add("kv_a_proj_with_mqa", (size_t)R * C, -0.6f, 0.6f), add("kv_a_layernorm", (size_t)r, 0.6f, 1.4f);
    add("kv_b_proj", (size_t)H * E * r, -0.7f, 0.7f), add("o_proj", (size_t)C * H * dv, -0.5f, 0.5f);
    rope.ensure(64);
    layer.cfg = &cfg, layer.rope = &rope;
    bind();
  }

  float* at(std::map<std::string, std::vector<float>>& m, const std::string& n) {
    auto it = m.find(n);
    return it == m.end() ? nullptr : it->second.data();
  }
  void bind() {
    MlaWeights& w = layer.w;
    w.q_w = at(p, "q_proj"), w.q_a_w = at(p, "q_a_proj"), w.q_a_norm = at(p, "q_a_layernorm");
    w.q_b_w = at(p, "q_b_proj"), w.kv_a_w = at(p, "kv_a_proj_with_mqa");
    w.kv_a_norm = at(p, "kv_a_layernorm"), w.kv_b_w = at(p, "kv_b_proj"), w.o_w = at(p, "o_proj");
    w.dq_w = at(grad, "q_proj"), w.dq_a_w = at(grad, "q_a_proj"), w.dq_a_norm = at(grad, "q_a_layernorm");
    w.dq_b_w = at(grad, "q_b_proj"), w.dkv_a_w = at(grad, "kv_a_proj_with_mqa");
    w.dkv_a_norm = at(grad, "kv_a_layernorm"), w.dkv_b_w = at(grad, "kv_b_proj");
    w.do_w = at(grad, "o_proj");
  }
  ref::MlaParams ref_params() const {
    auto d = [&](const char* n) {
      auto it = p.find(n);
      return it == p.end() ? std::vector<double>() : test::to_double(it->second);
    };
    ref::MlaParams q;
    q.q_proj = d("q_proj"), q.q_a_proj = d("q_a_proj"), q.q_a_layernorm = d("q_a_layernorm");
    q.q_b_proj = d("q_b_proj"), q.kv_a_proj_with_mqa = d("kv_a_proj_with_mqa");
    q.kv_a_layernorm = d("kv_a_layernorm"), q.kv_b_proj = d("kv_b_proj"), q.o_proj = d("o_proj");
    return q;
  }
  // The double reference's y [T, C] of x [T, C] with parameters q (ops/ref/ref_mla.h).
  std::vector<double> ref_forward(const ref::MlaParams& q, const std::vector<double>& x, int T) const {
    return ref::mla_forward(cfg.mla, cfg.hidden_size, cfg.num_attention_heads, cfg.rope_theta, q, x, T);
  }

  // Training forward (+ backward of <dy, y> when dy is given) of B sequences of T tokens.
  std::vector<float> train(const std::vector<float>& x, int B, int T, const std::vector<float>* dy,
                           std::vector<float>* dx) {
    const size_t N = (size_t)B * T;
    std::vector<int> pos(N);
    for (size_t n = 0; n < N; ++n) pos[n] = (int)(n % (size_t)T);
    std::vector<float> sv[10], gv[10];
    auto take = [](std::vector<float>& v, size_t n) { v.assign(std::max<size_t>(n, 1), 0.0f); return v.data(); };
    MlaSaved s;
    s.cq = qr ? take(sv[0], N * qr) : nullptr, s.cq_n = qr ? take(sv[1], N * qr) : nullptr;
    s.cq_rstd = take(sv[2], N), s.kv_a = take(sv[3], N * R), s.c_raw = take(sv[4], N * r);
    s.c = take(sv[5], N * r), s.c_rstd = take(sv[6], N), s.q = take(sv[7], N * H * D);
    s.k = take(sv[8], N * H * D), s.v = take(sv[9], N * H * dv);
    std::vector<float> attn(N * H * dv), lse(N * H), y(N * cfg.hidden_size);
    s.attn = attn.data(), s.lse = lse.data();
    MlaGradScratch g;
    g.dattn = take(gv[0], N * H * dv), g.dq = take(gv[1], N * H * D), g.dk = take(gv[2], N * H * D);
    g.dv = take(gv[3], N * H * dv), g.dkv = take(gv[4], N * H * E), g.dkv_a = take(gv[5], N * R);
    g.dc = take(gv[6], N * r), g.dc_raw = take(gv[7], N * r);
    g.dcq = qr ? take(gv[8], N * qr) : nullptr, g.dcq_raw = qr ? take(gv[9], N * qr) : nullptr;
    layer.forward(x.data(), B, T, pos.data(), s, g, y.data());
    if (dy) {
      dx->assign(x.size(), std::nanf(""));
      layer.backward(dx->data(), dy->data(), x.data(), B, T, pos.data(), s, g);
    }
    return y;
  }

  // Cached forward of one sequence in chunks (then single tokens), in `form`.
  std::vector<float> cached(const std::vector<float>& x, int T, std::vector<int> chunks,
                            MlaDecode form, WorkCounters* out = nullptr) {
    const int C = cfg.hidden_size;
    PagedKvCache cache(64, PageRows{R, 0}, ElementType::F32);  // latent rows [c | k_pe], no V
    std::vector<float> q(64 * H * D), cq(64 * std::max(qr, 1)), cqn(cq.size()), kv_a(64 * R),
        c_raw(64 * r), c(64 * r), attn(64 * H * dv), q_abs(64 * H * R), o_lat(64 * H * r),
        lat(64 * R), kv(64 * H * E), k(64 * H * D), v(64 * H * dv), y((size_t)T * C);
    MlaInferScratch g{q.data(),     cq.data(),    cqn.data(),  kv_a.data(), c_raw.data(),
                      c.data(),     attn.data(),  q_abs.data(), o_lat.data(), lat.data(),
                      kv.data(),    k.data(),     v.data()};
    InferOptions opt;
    opt.mla_decode = form;
    WorkCounters counters;
    std::vector<int> pos(64);
    for (int i = 0; i < 64; ++i) pos[(size_t)i] = i;
    for (size_t i = 0, t = 0; (int)t < T; ++i) {
      const int n = std::min(i < chunks.size() ? chunks[i] : 1, T - (int)t);
      const BatchSegment seg{0, n, (int)t, &cache};
      layer.forward_cached(x.data() + t * C, n, pos.data() + t, std::span(&seg, 1), g, opt,
                           y.data() + t * C, counters);
      t += (size_t)n;
    }
    if (out) *out = counters;
    EXPECT_EQ(cache.bytes_in_use(), (size_t)T * R * 4);
    return y;
  }
};

TEST(LayersMla, TrainingForwardMatchesReference) {
  for (int qr : {0, 9}) {
    SCOPED_TRACE("q_lora_rank " + std::to_string(qr));
    Harness h(mla_config(qr), 5);
    std::mt19937 rng(7);
    const int B = 2, T = 13, C = h.cfg.hidden_size;
    const std::vector<float> x = test::rand_vec((size_t)B * T * C, rng);
    const std::vector<float> y = h.train(x, B, T, nullptr, nullptr);
    for (int b = 0; b < B; ++b) {
      const std::vector<double> xb(x.begin() + (long)b * T * C, x.begin() + (long)(b + 1) * T * C);
      const std::vector<double> want = h.ref_forward(h.ref_params(), xb, T);
      const std::vector<float> got(y.begin() + (long)b * T * C, y.begin() + (long)(b + 1) * T * C);
      EXPECT_TRUE(all_close(got, want, 1e-4, 1e-5, "y", {T, C}));
    }
  }
}

TEST(LayersMla, BackwardMatchesFiniteDifferencesOfTheReference) {
  for (int qr : {0, 9}) {
    SCOPED_TRACE("q_lora_rank " + std::to_string(qr));
    Harness h(mla_config(qr, 2), 11);
    std::mt19937 rng(13);
    const int T = 6, C = h.cfg.hidden_size;
    std::vector<float> x = test::rand_vec((size_t)T * C, rng);
    const std::vector<float> dy = test::upstream((size_t)T * C, rng);
    std::vector<float> dx;
    h.train(x, 1, T, &dy, &dx);
    const std::vector<double> r = test::to_double(dy);
    std::vector<double> xd = test::to_double(x);
    ref::MlaParams rp = h.ref_params();
    auto loss = [&] { return test::dot(r, h.ref_forward(rp, xd, T)); };
    using test::kGradAtol, test::kGradRtol;
    EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), kGradRtol, kGradAtol, "dx"));
    const std::pair<const char*, std::vector<double>*> params[] = {
        {"q_proj", &rp.q_proj}, {"q_a_proj", &rp.q_a_proj}, {"q_a_layernorm", &rp.q_a_layernorm},
        {"q_b_proj", &rp.q_b_proj}, {"kv_a_proj_with_mqa", &rp.kv_a_proj_with_mqa},
        {"kv_a_layernorm", &rp.kv_a_layernorm}, {"kv_b_proj", &rp.kv_b_proj}, {"o_proj", &rp.o_proj}};
    for (const auto& [name, v] : params) {
      if (v->empty()) continue;
      EXPECT_TRUE(all_close(h.grad[name], test::fd_grad(*v, loss), kGradRtol, kGradAtol,
                            std::string("d") + name));
    }
  }
}

// Prefill + chunks + single tokens, chunk sizes {1, 3, T, > T}, T = 17 not a multiple of 3:
// both decode forms give the reference's outputs; absorbed and expanded do different work.
TEST(LayersMla, BothDecodeFormsEqualTheFullForward) {
  for (int qr : {0, 9}) {
    Harness h(mla_config(qr), 17);
    std::mt19937 rng(19);
    const int T = 17, C = h.cfg.hidden_size;
    const std::vector<float> x = test::rand_vec((size_t)T * C, rng);
    const std::vector<double> want = h.ref_forward(h.ref_params(), test::to_double(x), T);
    for (MlaDecode form : {MlaDecode::Absorbed, MlaDecode::Expanded})
      for (const std::vector<int>& chunks : {std::vector<int>{5, 3, 1}, {1}, {3, 3, 3, 3, 3, 3},
                                            {17}, {40}}) {
        SCOPED_TRACE(format("q_lora_rank {} form {} first chunk {}", qr,
                            form == MlaDecode::Absorbed ? "absorbed" : "expanded", chunks[0]));
        EXPECT_TRUE(all_close(h.cached(x, T, chunks, form), want, 1e-4, 1e-5, "y", {T, C}));
      }
    WorkCounters a, e;
    h.cached(x, T, {1}, MlaDecode::Absorbed, &a);
    h.cached(x, T, {1}, MlaDecode::Expanded, &e);
    EXPECT_EQ(a.qk_scores, e.qk_scores);
    EXPECT_EQ(a.kv_projected, (uint64_t)T);
    // Absorbed: per token H·(dn+dv)·r for the two absorptions + (2r + dr) per score; expanded
    // re-creates every cached token: S·r·H·(dn+dv) + (D + dv) per score.
    uint64_t absorbed = 0, expanded = 0;
    for (uint64_t S = 1; S <= (uint64_t)T; ++S) {
      const uint64_t qk = S * h.H;
      absorbed += (uint64_t)h.H * h.E * h.r + qk * (uint64_t)(h.R + h.r);
      expanded += S * h.r * h.H * h.E + qk * (uint64_t)(h.D + h.dv);
    }
    EXPECT_EQ(a.attn_macs, absorbed);
    EXPECT_EQ(e.attn_macs, expanded);
  }
}

// One head, dn = 3, dr = 2, dv = 2, r = 4 (dn + dr = 5 ≠ r + dr = 6), hand-chosen weights:
// k_pe = 0 and q_pe = 0, so scores are q_nope·k_nope / √5. Token 1's weights over tokens 0 and 1
// are p0 = 1 / (1 + e^{-4/√5}) and 1 − p0; its output is [1, 2·p0 − 1, 0, 0].
TEST(LayersMla, AbsorbedScaleOnAHandBuiltCase) {
  ModelConfig c = mla_config(0, 1);
  c.hidden_size = 4, c.mla = {0, 4, 3, 2, 2}, c.head_dim = 2;
  Harness h(c, 1);
  h.p["q_proj"] = {1, 0, 0, 0,  0, 2, 0, 0,  0, 1, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0};  // [5, 4]
  h.p["kv_a_proj_with_mqa"] = {1, 1, 0, 0, 1, -1, 0, 0, 1, 1, 0, 0, 1, -1, 0, 0,     // [6, 4]
                               0, 0, 0, 0, 0, 0, 0, 0};
  h.p["kv_a_layernorm"] = {1, 1, 1, 1};
  h.p["kv_b_proj"] = {1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0,  0, 0, 0, 1};  // [5, 4]
  h.p["o_proj"] = {1, 0, 0, 1, 0, 0, 0, 0};                                             // [4, 2]
  h.bind();
  const std::vector<float> x = {1, 0, 0, 0, 0, 1, 0, 0};  // token 0 = e0, token 1 = e1
  const double p0 = 1.0 / (1.0 + std::exp(-4.0 / std::sqrt(5.0)));
  const double rn = 1.0 / std::sqrt(1.0 + 1e-6);  // kv_a_layernorm of a unit-mean-square latent
  const std::vector<double> want = {rn, rn, 0, 0, rn, rn * (2 * p0 - 1), 0, 0};
  for (MlaDecode form : {MlaDecode::Absorbed, MlaDecode::Expanded}) {
    EXPECT_TRUE(all_close(h.cached(x, 2, {2}, form), want, 1e-6, 1e-6, "prefill"));
    EXPECT_TRUE(all_close(h.cached(x, 2, {1}, form), want, 1e-6, 1e-6, "decode"));
  }
  EXPECT_TRUE(all_close(h.train(x, 1, 2, nullptr, nullptr), want, 1e-6, 1e-6, "training"));
  // With the scale of the absorbed key width, 1/√6, token 1's second output would be:
  EXPECT_GT(std::fabs((2 * p0 - 1) - (2.0 / (1.0 + std::exp(-4.0 / std::sqrt(6.0))) - 1)), 0.03);
}

// k_pe is one head shared by all heads; q_pe is per head: changing head 0's q_pe rows of q_proj
// changes only head 0's output, changing kv_a's k_pe rows changes every head's.
TEST(LayersMla, RopeKeySharedQueryRopePerHead) {
  Harness h(mla_config(0, 3), 23);
  std::mt19937 rng(29);
  const int T = 6, C = h.cfg.hidden_size, dn = h.cfg.mla.qk_nope_head_dim, dv = h.dv;
  const std::vector<float> x = test::rand_vec((size_t)T * C, rng);
  // Read the attention output [H, dv] of the last token through o_proj rows picking each head.
  auto attn_out = [&] {
    std::vector<float> saved = h.p["o_proj"];
    std::vector<float> out;
    for (int head = 0; head < h.H; ++head) {
      std::vector<float>& o = h.p["o_proj"];
      std::fill(o.begin(), o.end(), 0.0f);
      for (int i = 0; i < std::min(C, dv); ++i) o[(size_t)i * h.H * dv + head * dv + i] = 1.0f;
      const std::vector<float> y = h.cached(x, T, {T}, MlaDecode::Absorbed);
      out.insert(out.end(), y.end() - C, y.end() - C + std::min(C, dv));
    }
    h.p["o_proj"] = saved;
    return out;  // [H, min(C, dv)]
  };
  const std::vector<float> base = attn_out();
  const int w = std::min(C, dv);
  std::vector<float>& q = h.p["q_proj"];
  for (int i = 0; i < C; ++i) q[(size_t)(0 * h.D + dn) * C + i] += 0.5f;  // head 0, first q_pe row
  const std::vector<float> q_changed = attn_out();
  for (int head = 0; head < h.H; ++head) {
    double diff = 0;
    for (int i = 0; i < w; ++i) diff += std::fabs(q_changed[(size_t)head * w + i] - base[(size_t)head * w + i]);
    if (head == 0) {
      EXPECT_GT(diff, 1e-3) << "head 0 must change";
    } else {
      EXPECT_EQ(diff, 0.0) << "head " << head << " changed with head 0's q_pe";
    }
  }
  std::vector<float>& kv_a = h.p["kv_a_proj_with_mqa"];
  for (int i = 0; i < C; ++i) kv_a[(size_t)h.r * C + i] += 0.5f;  // first k_pe row
  const std::vector<float> k_changed = attn_out();
  for (int head = 0; head < h.H; ++head) {
    double diff = 0;
    for (int i = 0; i < w; ++i) diff += std::fabs(k_changed[(size_t)head * w + i] - q_changed[(size_t)head * w + i]);
    EXPECT_GT(diff, 1e-4) << "head " << head << " ignores the shared k_pe";
  }
}

}  // namespace
}  // namespace llm0
