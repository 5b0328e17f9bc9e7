// Mixture-of-experts layer (layers/moe.h, layers/moe_router.h) against the double-precision
// reference (ops/ref/ref_moe.h) and invariants: the routing table of every family (softmax /
// sigmoid × renormalise on/off × routed_scaling_factor 1 / 2.5 × bias none / positive /
// all-negative × grouped / ungrouped) with experts whose output names them (expert e returns
// e + 1); top_k = E is the full mixture; identical experts are one MLP; top-1 with
// renormalisation gives the router exactly zero gradient; every gradient (experts, shared expert
// and its gate, router, balancing loss) against central differences of the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/arena.h"
#include "layers/moe.h"
#include "layers/moe_router.h"
#include "ops/ref/ref_moe.h"

using namespace llm0;

namespace {

struct Case {
  int E, K, Fe, Fs;
  bool gated;  // qwen2_moe's shared_expert_gate
  MoeScoring scoring;
  MoeTopk topk;
  int n_group, topk_group;
  bool norm;
  double scale;
};

ModelConfig config_of(const Case& k, int C) {
  ModelConfig c;
  c.hidden_size = C, c.hidden_act = "silu";
  MoeConfig& m = c.moe;
  m.num_experts = k.E, m.num_experts_per_tok = k.K, m.moe_intermediate_size = k.Fe;
  m.shared_expert_intermediate_size = k.Fs, m.shared_expert_gate = k.gated;
  m.scoring = k.scoring, m.topk_method = k.topk, m.n_group = k.n_group, m.topk_group = k.topk_group;
  m.norm_topk_prob = k.norm, m.routed_scaling_factor = k.scale;
  m.validate("test");
  return c;
}

// One MoE layer with its weights (float, bound to the layer) and gradients, N tokens.
struct Fixture {
  ModelConfig cfg;
  int N, C;
  ref::MoeParams p;  // the weights in double (HF layout)
  std::vector<float> w, dw;  // every weight in one buffer, in the order of tensors()
  MoeLayer layer;
  Arena arena;
  MoeSaved s;
  MoeGradScratch g;

  // Tensors in a fixed order: gate, bias, shared gate, experts' (gate, up, down), shared's.
  std::vector<std::vector<double>*> tensors() {
    std::vector<std::vector<double>*> t = {&p.gate, &p.e_score_correction_bias, &p.shared_expert_gate};
    for (ref::SwigluParams& e : p.experts) t.insert(t.end(), {&e.gate_proj, &e.up_proj, &e.down_proj});
    t.insert(t.end(), {&p.shared.gate_proj, &p.shared.up_proj, &p.shared.down_proj});
    return t;
  }

  Fixture(const Case& k, int C_, int N_) : cfg(config_of(k, C_)), N(N_), C(C_) {
    const MoeConfig& m = cfg.moe;
    p.gate.resize((size_t)m.num_experts * C);
    if (m.has_correction_bias()) p.e_score_correction_bias.resize((size_t)m.num_experts);
    if (k.gated && k.Fs) p.shared_expert_gate.resize((size_t)C);
    p.experts.resize((size_t)m.num_experts);
    for (ref::SwigluParams& e : p.experts)
      e.gate_proj.resize((size_t)k.Fe * C), e.up_proj.resize((size_t)k.Fe * C), e.down_proj.resize((size_t)C * k.Fe);
    if (k.Fs)
      p.shared.gate_proj.resize((size_t)k.Fs * C), p.shared.up_proj.resize((size_t)k.Fs * C),
          p.shared.down_proj.resize((size_t)C * k.Fs);
    size_t total = 0;
    for (auto* t : tensors()) total += t->size();
    w.assign(total, 0.0f), dw.assign(total, 0.0f);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 0) arena.begin_measure(); else arena.allocate();
      const MoeSizes z(cfg, (size_t)N);
      carve_moe([this](size_t n) { return arena.take(n); }, z, s);
      carve_moe_grads([this](size_t n) { return arena.take(n); }, z, g);
    }
  }

  // Copies the double weights into the float buffer and binds the layer.
  void bind() {
    size_t o = 0;
    std::vector<float*> at, dat;
    for (auto* t : tensors()) {
      for (size_t i = 0; i < t->size(); ++i) w[o + i] = (float)(*t)[i];
      at.push_back(t->empty() ? nullptr : w.data() + o), dat.push_back(t->empty() ? nullptr : dw.data() + o);
      o += t->size();
    }
    layer.cfg = &cfg;
    layer.gate_w = at[0], layer.dgate_w = dat[0], layer.bias = at[1];
    layer.shared_gate_w = at[2], layer.dshared_gate_w = dat[2];
    const MoeConfig& m = cfg.moe;
    auto mlp = [&](size_t i, int F) {
      MlpLayer l;
      l.cfg = &cfg, l.width = F;
      l.w.gate_w = at[i], l.w.up_w = at[i + 1], l.w.down_w = at[i + 2];
      l.w.dgate_w = dat[i], l.w.dup_w = dat[i + 1], l.w.ddown_w = dat[i + 2];
      return l;
    };
    layer.experts.clear();
    for (int e = 0; e < m.num_experts; ++e) layer.experts.push_back(mlp(3 + 3 * (size_t)e, m.moe_intermediate_size));
    layer.shared = mlp(3 + 3 * (size_t)m.num_experts, m.shared_expert_intermediate_size);
  }

  void randomize(unsigned seed, double sd) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> nd(0.0, sd);
    for (auto* t : tensors())
      for (double& v : *t) v = nd(rng);
    bind();
  }

  std::vector<float> forward(const std::vector<float>& x) {
    std::vector<float> y((size_t)N * C);
    layer.forward(x.data(), N, s, y.data());
    return y;
  }
};

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// ---- the routing table -------------------------------------------------------------------------

// Expert e returns e + 1 on every channel (x column 0 is 1: silu(30·1)·1 = 30, down = (e+1)/30);
// token n's router logits are column 1 + n of the gate (x[n, 1 + n] = 1).
void name_the_experts(Fixture& f, const std::vector<std::vector<double>>& logits,
                      const std::vector<double>& bias) {
  const int E = f.cfg.moe.num_experts, C = f.C;
  for (auto* t : f.tensors()) std::fill(t->begin(), t->end(), 0.0);
  for (int e = 0; e < E; ++e) {
    ref::SwigluParams& x = f.p.experts[(size_t)e];
    x.gate_proj[0] = 30.0, x.up_proj[0] = 1.0;
    for (int c = 0; c < C; ++c) x.down_proj[(size_t)c] = (e + 1) / 30.0;
    for (size_t n = 0; n < logits.size(); ++n) f.p.gate[(size_t)e * C + 1 + n] = logits[n][(size_t)e];
  }
  if (!bias.empty()) f.p.e_score_correction_bias = bias;
  f.bind();
}

TEST(MoeRouter, RoutingTableEveryFamilyExpertsNameThemselves) {
  const int E = 8, K = 2, N = 4, C = 1 + N;
  // Logits with no ties; token 3's best two experts are in one group (0, 1), token 2's in different ones.
  const std::vector<std::vector<double>> logits = {
      {0.1, 0.7, -0.3, 1.2, 0.0, -1.0, 0.4, 0.9}, {2.0, -0.5, 0.3, 0.2, 1.1, 1.0, -0.2, 0.6},
      {-1.5, 0.2, 0.25, -0.1, 0.8, -0.7, 1.4, 0.05}, {1.3, 1.25, -0.4, 0.3, -0.6, 0.1, 0.2, 0.0}};
  const std::vector<double> positive = {0.0, 0.5, 0.9, 0.0, 0.3, 0.0, 0.0, 0.2};
  const std::vector<double> negative = {-0.9, -0.1, -0.3, -2.0, -0.2, -0.4, -1.0, -0.05};
  int cases = 0;
  for (MoeScoring scoring : {MoeScoring::Softmax, MoeScoring::Sigmoid})
    for (bool norm : {false, true})
      for (double scale : {1.0, 2.5})
        for (int bias_kind : {0, 1, 2})
          for (bool grouped : {false, true}) {
            // noaux_tc is defined on sigmoid scores only (MoeConfig::validate refuses softmax)
            if (scoring == MoeScoring::Softmax && bias_kind) continue;
            const MoeTopk topk = bias_kind ? MoeTopk::NoauxTc
                                 : grouped ? MoeTopk::GroupLimitedGreedy : MoeTopk::Greedy;
            const Case k{E, K, 1, 0, false, scoring, topk, grouped ? 4 : 1, grouped ? 2 : 1, norm, scale};
            Fixture f(k, C, N);
            const std::vector<double> bias = bias_kind == 1 ? positive : bias_kind == 2 ? negative
                                           : k.topk == MoeTopk::NoauxTc ? std::vector<double>(E, 0.0)
                                                                        : std::vector<double>{};
            name_the_experts(f, logits, bias);
            std::vector<float> x((size_t)N * C, 0.0f);
            for (int n = 0; n < N; ++n) x[(size_t)n * C] = 1.0f, x[(size_t)n * C + 1 + n] = 1.0f;
            const std::vector<float> y = f.forward(x);
            const std::string what = testing::PrintToString(std::vector<double>{(double)scoring, (double)norm, scale, (double)bias_kind, (double)grouped});
            for (int n = 0; n < N; ++n) {
              const ref::MoeRoute r = ref::moe_route(f.cfg.moe, logits[(size_t)n], bias);
              double mixed = 0, wsum = 0;
              for (int j = 0; j < K; ++j) {
                EXPECT_EQ(f.s.ids[n * K + j], r.ids[(size_t)j]) << what << " token " << n;
                EXPECT_NEAR(f.s.weights[n * K + j], r.weights[(size_t)j], 1e-6) << what;
                mixed += r.weights[(size_t)j] * (r.ids[(size_t)j] + 1), wsum += r.weights[(size_t)j];
              }
              for (int c = 0; c < C; ++c)
                EXPECT_NEAR(y[(size_t)n * C + c], mixed, 2e-5 * mixed) << what << " token " << n;
              // The scale applies exactly once, whether or not the weights are renormalised.
              if (norm) {
                EXPECT_NEAR(wsum, scale, 1e-12) << what;
              }
            }
            ++cases;
          }
  EXPECT_EQ(cases, 32);
}

// Hand-derived choices (not from any implementation) for the rules that differ between families.
TEST(MoeRouter, HandDerivedChoicesAndTieRule) {
  MoeConfig m;
  m.num_experts = 4, m.num_experts_per_tok = 2;
  std::vector<float> s(4), w(2), work(8);
  std::vector<int> ids(2);
  const float z[4] = {0.0f, 1.0f, 1.0f, -1.0f};  // experts 1 and 2 tie: both chosen, 1 first
  moe_route(m, z, nullptr, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{1, 2}));
  const float tie3[4] = {0.5f, 0.5f, 0.5f, -1.0f};  // three-way tie at the top: the lower ids win
  moe_route(m, tie3, nullptr, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{0, 1}));
  // Softmax, no renormalisation, × 2.5: weights are 2.5 × the probabilities over all 4 experts.
  m.routed_scaling_factor = 2.5;
  const float z2[4] = {std::log(4.0f), std::log(3.0f), std::log(2.0f), 0.0f};  // p = .4 .3 .2 .1
  moe_route(m, z2, nullptr, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{0, 1}));
  EXPECT_NEAR(w[0], 1.0, 1e-6);
  EXPECT_NEAR(w[1], 0.75, 1e-6);
  m.norm_topk_prob = true;  // 2.5 × (.4, .3) / .7
  moe_route(m, z2, nullptr, s.data(), ids.data(), w.data(), work.data());
  EXPECT_NEAR(w[0], 2.5 * 4 / 7, 1e-6);
  EXPECT_NEAR(w[1], 2.5 * 3 / 7, 1e-6);
  // noaux_tc: a bias of +1 on expert 3 makes it chosen, but its weight is its unbiased score.
  m.scoring = MoeScoring::Sigmoid, m.topk_method = MoeTopk::NoauxTc, m.norm_topk_prob = false;
  m.routed_scaling_factor = 1.0;
  const float zero[4] = {0.0f, 0.5f, 0.0f, 0.0f}, bias[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  moe_route(m, zero, bias, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{3, 1}));
  EXPECT_FLOAT_EQ(w[0], 0.5f);  // σ(0)
  // Groups of two ({0,1}, {2,3}), one kept: noaux_tc ranks by the sum of the two best, so the
  // group {2, 3} (0.6 + 0.6) beats {0, 1} (0.9 + 0.0) although expert 0 is the best single one;
  // group_limited_greedy ranks by the best, so {0, 1} wins.
  m.n_group = 2, m.topk_group = 1;
  const float g[4] = {0.9f, -9.0f, 0.6f, 0.6f};
  const float nobias[4] = {0, 0, 0, 0};
  m.scoring = MoeScoring::Softmax;
  moe_route(m, g, nobias, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{2, 3}));
  m.topk_method = MoeTopk::GroupLimitedGreedy;
  moe_route(m, g, nullptr, s.data(), ids.data(), w.data(), work.data());
  EXPECT_EQ(ids, (std::vector<int>{0, 1}));
}

// ---- invariants --------------------------------------------------------------------------------

std::vector<float> random_x(int N, int C, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x((size_t)N * C);
  for (float& v : x) v = nd(rng);
  return x;
}

// top_k = E (softmax, no renormalisation): y = Σ_e softmax(z)_e expert_e(x) over every expert,
// computed here with dense MLPs, without the router's choice or grouping.
TEST(MoeLayer, TopKEqualsEIsTheFullMixture) {
  const int C = 9, N = 7, E = 5;
  Fixture f(Case{E, E, 6, 0, false, MoeScoring::Softmax, MoeTopk::Greedy, 1, 1, false, 1.0}, C, N);
  f.randomize(3, 0.4);
  const std::vector<float> x = random_x(N, C, 4);
  const std::vector<float> y = f.forward(x);
  for (int n = 0; n < N; ++n) {
    std::vector<double> z((size_t)E), want((size_t)C, 0.0);
    double mx = -1e30, sum = 0;
    for (int e = 0; e < E; ++e) {
      for (int c = 0; c < C; ++c) z[(size_t)e] += f.p.gate[(size_t)e * C + c] * x[(size_t)n * C + c];
      mx = std::max(mx, z[(size_t)e]);
    }
    for (double& v : z) sum += v = std::exp(v - mx);
    for (int e = 0; e < E; ++e) {
      std::vector<float> o((size_t)C), gate(6), up(6), h(6);
      MlpSaved ms{gate.data(), up.data(), h.data()};
      f.layer.experts[(size_t)e].forward(x.data() + (size_t)n * C, 1, ms, o.data());
      for (int c = 0; c < C; ++c) want[(size_t)c] += z[(size_t)e] / sum * o[(size_t)c];
    }
    for (int c = 0; c < C; ++c) EXPECT_NEAR(y[(size_t)n * C + c], want[(size_t)c], 1e-5);
  }
}

// E identical experts with renormalised weights (Σ_k w_k = 1) are one MLP, whatever the router
// chooses; top-1 with renormalisation gives the router exactly zero gradient.
TEST(MoeLayer, IdenticalExpertsAreOneMlpAndTopOneRenormalisedRouterGetsNoGradient) {
  const int C = 8, N = 9, E = 6;
  for (int K : {1, 3}) {
    Fixture f(Case{E, K, 5, 0, false, MoeScoring::Softmax, MoeTopk::Greedy, 1, 1, true, 1.0}, C, N);
    f.randomize(5, 0.5);
    for (int e = 1; e < E; ++e) f.p.experts[(size_t)e] = f.p.experts[0];
    f.bind();
    const std::vector<float> x = random_x(N, C, 6);
    const std::vector<float> y = f.forward(x);
    std::vector<float> want((size_t)N * C), gate((size_t)N * 5), up((size_t)N * 5), h((size_t)N * 5);
    MlpSaved ms{gate.data(), up.data(), h.data()};
    f.layer.experts[0].forward(x.data(), N, ms, want.data());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5) << "K=" << K;
    // Router gradient: exactly 0 for K = 1 (w = 1 whatever the scores), non-zero for K = 3 with
    // different experts.
    f.randomize(7, 0.5);
    f.forward(x);
    const std::vector<float> dy = random_x(N, C, 8);
    std::vector<float> dx((size_t)N * C);
    std::fill(f.dw.begin(), f.dw.end(), 0.0f);
    f.layer.backward(dx.data(), dy.data(), x.data(), N, f.s, f.g);
    double router = 0;
    for (size_t i = 0; i < f.p.gate.size(); ++i) router += std::fabs(f.dw[i]);
    if (K == 1) {
      EXPECT_EQ(router, 0.0);
    } else {
      EXPECT_GT(router, 1e-3);
    }
  }
}

// ---- gradients against central differences of the double reference ------------------------------

// Smallest gap between the K-th and (K+1)-th choice score over the tokens (a step of h must not
// cross it); noaux_tc groups are ignored here (the ungrouped gap bounds the test's steps).
double kth_gap(const Fixture& f, const std::vector<float>& x) {
  const MoeConfig& m = f.cfg.moe;
  double gap = 1e30;
  for (int n = 0; n < f.N; ++n) {
    std::vector<double> c((size_t)m.num_experts);
    for (int e = 0; e < m.num_experts; ++e) {
      double z = 0;
      for (int j = 0; j < f.C; ++j) z += f.p.gate[(size_t)e * f.C + j] * x[(size_t)n * f.C + j];
      c[(size_t)e] = z;
    }
    std::sort(c.rbegin(), c.rend());
    if (m.num_experts_per_tok < m.num_experts)
      gap = std::min(gap, c[(size_t)m.num_experts_per_tok - 1] - c[(size_t)m.num_experts_per_tok]);
  }
  return gap;
}

void check_gradients(const Case& k, double aux, const std::string& name) {
  const int C = 7, N = 11;
  Fixture f(k, C, N);
  f.randomize(11, 0.5);
  const std::vector<float> x = random_x(N, C, 12), r = random_x(N, C, 13);
  ASSERT_GT(kth_gap(f, x), 1e-3) << name << ": choose a seed without near-ties at the k-th score";
  f.forward(x);
  std::vector<float> dx((size_t)N * C);
  std::fill(f.dw.begin(), f.dw.end(), 0.0f);
  f.layer.backward(dx.data(), r.data(), x.data(), N, f.s, f.g, (float)aux);
  std::vector<double> xd = to_double(x);
  const auto loss = [&]() {
    const std::vector<double> y = ref::moe_forward(f.cfg.moe, C, f.p, xd, N);
    double l = 0;
    for (size_t i = 0; i < y.size(); ++i) l += y[i] * r[i];
    return l + aux * ref::moe_balance(f.cfg.moe, C, f.p, xd, N);
  };
  const double h = 1e-6;
  auto fd = [&](double& v) {
    const double v0 = v;
    v = v0 + h;
    const double lp = loss();
    v = v0 - h;
    const double lm = loss();
    v = v0;
    return (lp - lm) / (2 * h);
  };
  for (size_t i = 0; i < xd.size(); ++i) EXPECT_NEAR(dx[i], fd(xd[i]), 1e-3 + 1e-3 * std::fabs(dx[i])) << name << " dx " << i;
  size_t o = 0;
  int t = 0;
  for (auto* tensor : f.tensors()) {
    const bool bias = t == 1;  // e_score_correction_bias: no gradient
    for (size_t i = 0; i < tensor->size(); ++i) {
      const double want = bias ? 0.0 : fd((*tensor)[i]);
      EXPECT_NEAR(f.dw[o + i], want, 1e-3 + 1e-3 * std::fabs(want)) << name << " tensor " << t << " [" << i << "]";
    }
    o += tensor->size(), ++t;
  }
}

TEST(MoeLayer, GradientsMatchFiniteDifferencesQwen2GatedSharedSoftmax) {
  check_gradients(Case{6, 2, 5, 9, true, MoeScoring::Softmax, MoeTopk::Greedy, 1, 1, false, 1.0}, 0.0,
                  "qwen2_moe");
}

TEST(MoeLayer, GradientsMatchFiniteDifferencesQwen3RenormalisedWithAuxLoss) {
  check_gradients(Case{6, 3, 4, 0, false, MoeScoring::Softmax, MoeTopk::Greedy, 1, 1, true, 1.0}, 0.37,
                  "qwen3_moe + aux");
}

TEST(MoeLayer, GradientsMatchFiniteDifferencesDeepSeekV2GroupedScaled) {
  check_gradients(Case{6, 2, 5, 10, false, MoeScoring::Softmax, MoeTopk::GroupLimitedGreedy, 3, 2, false, 1.7},
                  0.0, "deepseek_v2");
}

TEST(MoeLayer, GradientsMatchFiniteDifferencesDeepSeekV3SigmoidNoauxTcWithAuxLoss) {
  check_gradients(Case{8, 3, 4, 8, false, MoeScoring::Sigmoid, MoeTopk::NoauxTc, 4, 2, true, 2.5}, 0.29,
                  "deepseek_v3");
}

}  // namespace
