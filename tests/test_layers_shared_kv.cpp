// Shared-KV attention (layers/shared_kv_attention.h) and its double reference
// (ops/ref/ref_shared_kv.h), with C ≠ H ≠ Hkv ≠ D ≠ R so no axis mix-up can cancel: the reference
// on a hand-computed case (the rotary tail is the LAST R dims, the output turned back by −i) and
// its claim that only relative positions matter (all positions shifted: same outputs); the
// layer's training forward against the reference, with and without sinks; its backward (dx and
// every parameter) against central finite differences of the reference; the cached attention
// over K-only pages (chunks 1, 3, T, > T; one page or pages of 3) against the reference, its
// counters (one row per position: half the GQA layer's bytes), the config key and the mixer's
// refusals of what it lacks.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "config/config.h"
#include "core/params.h"
#include "core/check.h"
#include "layers/mixer_factory.h"
#include "layers/shared_kv_attention.h"
#include "ledger/kv_ledger.h"
#include "ops/ref/ref_shared_kv.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;

// C = 14, H = 4, Hkv = 2, D = 6, R = int(6 · 0.7) = 4 (the last 4 dims of each head rotate).
ModelConfig shared_kv_config(bool sinks) {
  nlohmann::json j = {{"vocab_size", 61}, {"hidden_size", 14}, {"intermediate_size", 20},
                      {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                      {"num_key_value_heads", 2}, {"head_dim", 6}, {"partial_rotary_factor", 0.7},
                      {"max_position_embeddings", 64}, {"rms_norm_eps", 1e-6},
                      {"rope_theta", 500.0}, {"attention_sinks", sinks},
                      {"layer_types", {"shared_kv_attention", "full_attention"}}};
  return ModelConfig::from_json(j, "test config");
}

// One shared-KV layer whose parameters come from its own table (Mixer::declare / bind, names
// model.layers.0.self_attn.*), filled with random values, and every buffer it needs.
struct Harness {
  ModelConfig cfg;
  RopeTable rope;
  ParamStore store;
  SharedKvAttentionLayer layer;
  int C, H, Hkv, D, R;

  Harness(const ModelConfig& c, unsigned seed)
      : cfg(c), rope(c.rotary_dim(), c.rope_theta), layer(cfg, 0, &rope) {
    C = cfg.hidden_size, H = cfg.num_attention_heads, Hkv = cfg.num_key_value_heads;
    D = cfg.head_dim, R = cfg.rotary_dim();
    layer.declare(store, "model.layers.0.");
    store.finalize();
    std::mt19937 rng(seed);
    for (const ParamInfo& info : store.params()) {  // projections ±0.6 (o_proj ±0.5), sinks ±1
      const float a = info.name.find("o_proj") != std::string::npos ? 0.5f
                      : info.name.find("sinks") != std::string::npos ? 1.0f : 0.6f;
      const std::vector<float> v = test::rand_vec(info.numel, rng, -a, a);
      std::copy(v.begin(), v.end(), store.data() + info.offset);
    }
    rope.ensure(128);
    layer.bind(ParamBind{store}, "model.layers.0.");
  }
  // Values (or gradients) of self_attn.`n`[.weight]; empty when the table has no such name.
  std::vector<float> get(const std::string& n, bool grad = false) {
    const std::string name = "model.layers.0.self_attn." + n + (n == "sinks" ? "" : ".weight");
    if (!store.has(name)) return {};
    const ParamInfo& info = store.info(name);
    const float* b = (grad ? store.grad() : store.data()) + info.offset;
    return std::vector<float>(b, b + info.numel);
  }
  ref::SharedKvDims ref_dims() const { return {C, H, Hkv, D, R, 0, cfg.rope_theta}; }
  ref::SharedKvParams ref_params() {
    auto d = [&](const char* n) { return test::to_double(get(n)); };
    return {d("q_proj"), d("kv_proj"), d("o_proj"), d("sinks")};
  }

  // Training forward (+ backward of <dy, y> when dy is given) of B sequences of T tokens.
  std::vector<float> train(const std::vector<float>& x, int B, int T, const std::vector<float>* dy,
                           std::vector<float>* dx) {
    const size_t N = (size_t)B * T;
    std::vector<int> pos(N);
    for (size_t n = 0; n < N; ++n) pos[n] = (int)(n % (size_t)T);
    std::vector<float> q(N * H * D), s(N * Hkv * D), attn(N * H * D), o(N * H * D), lse(N * H);
    std::vector<float> y(N * C), dattn(N * H * D), dq(N * H * D), ds(N * Hkv * D), dv(N * Hkv * D);
    SharedKvSaved saved{q.data(), s.data(), attn.data(), o.data(), lse.data()};
    const SharedKvGradScratch g{dattn.data(), dq.data(), ds.data(), dv.data()};
    layer.forward(x.data(), B, T, pos.data(), saved, g, y.data());
    if (dy) {
      dx->assign(x.size(), std::nanf(""));
      layer.backward(dx->data(), dy->data(), x.data(), B, T, pos.data(), saved, g);
    }
    return y;
  }

  // Cached forward of one sequence in chunks (then single tokens) over K-only rows held in pages
  // of `page_size` positions: each chunk's rows are stored, then its queries attend.
  std::vector<float> cached(const std::vector<float>& x, int T, std::vector<int> chunks,
                            int page_size, WorkCounters* out = nullptr) {
    const long row = (long)Hkv * D;
    std::vector<float> rows(64 * row), q(64 * H * D), s(64 * row), attn(64 * H * D);
    std::vector<float> y((size_t)T * C);
    std::vector<const void*> pages;
    for (int j = 0; j < 64; j += page_size) pages.push_back(rows.data() + j * row);
    std::vector<int> pos(64);
    for (int i = 0; i < 64; ++i) pos[(size_t)i] = i;
    WorkCounters counters;
    for (size_t i = 0, t = 0; (int)t < T; ++i) {
      const int n = std::min(i < chunks.size() ? chunks[i] : 1, T - (int)t);
      layer.project(x.data() + t * C, n, pos.data() + t, q.data(), s.data());
      for (int k = 0; k < n; ++k)  // position t + k: page (t + k) / page_size, as a paged cache
        std::copy(s.begin() + k * row, s.begin() + (k + 1) * row, rows.begin() + (long)(t + k) * row);
      layer.attend_rows(q.data(), n, (int)t, pos.data() + t, pages.data(), page_size, false,
                        attn.data(), 4, counters);
      layer.output(attn.data(), n, y.data() + t * C);
      t += (size_t)n;
    }
    if (out) *out = counters;
    return y;
  }
};

// D = 3, R = 2 (dim 0 passes, dims 1-2 rotate), one head, identity projections, theta any:
// θ = position (the only pair has frequency theta^0 = 1). Token 0: s_0 = x_0. Token 1 at
// position 1: q_1 = s_1 = rot_1(x_1), scores q_1·s_0 and |x_1|², both / √3; output
// o = rot_{−1}(p0 s_0 + p1 s_1) = p0 rot_{−1}(x_0) + p1 x_1.
TEST(RefSharedKv, HandComputedTwoTokens) {
  const ref::SharedKvDims d{3, 1, 1, 3, 2, 0, 10000.0};
  const std::vector<double> I = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const ref::SharedKvParams p{I, I, I, {}};
  const std::vector<double> x0 = {0.5, 1.0, -0.25}, x1 = {0.0, 0.75, 0.5};
  std::vector<double> x = x0;
  x.insert(x.end(), x1.begin(), x1.end());
  const double c = std::cos(1.0), s = std::sin(1.0);
  const double q1[3] = {x1[0], x1[1] * c - x1[2] * s, x1[2] * c + x1[1] * s};
  // 1/√D as the float the attention's dims carry (ops/attention.h AttentionDims::scale).
  const double scale = (double)(float)(1.0 / std::sqrt(3.0));
  const double a0 = (q1[0] * x0[0] + q1[1] * x0[1] + q1[2] * x0[2]) * scale;
  const double a1 = (x1[0] * x1[0] + x1[1] * x1[1] + x1[2] * x1[2]) * scale;
  const double p0 = 1.0 / (1.0 + std::exp(a1 - a0)), p1 = 1.0 - p0;
  const double back0[3] = {x0[0], x0[1] * c + x0[2] * s, x0[2] * c - x0[1] * s};  // rot_{−1}(x_0)
  std::vector<double> want = x0;
  for (int i = 0; i < 3; ++i) want.push_back(p0 * back0[i] + p1 * x1[i]);
  // Sums of a few products of numbers ≤ 1: double rounding stays below 1e-15.
  EXPECT_TRUE(all_close(ref::shared_kv_forward(d, p, x, 2), want, 0, 1e-14, "y"));
}

// The output's rotation back by −i makes every score and every output a function of j − i:
// shifting all positions by 37 gives the same outputs. Angles up to (37 + T) · 1 rad carry an
// absolute double error ≤ 60 · 2^-52 ≈ 1.3e-14, summed over < C · H · D = 336 products of
// numbers < 2: the bound 1e-11 holds with room; a mistake in the sign of the turn back moves
// outputs by O(0.1).
TEST(RefSharedKv, OutputsDependOnRelativePositionsOnly) {
  for (bool sinks : {false, true}) {
    Harness h(shared_kv_config(sinks), 3);
    std::mt19937 rng(4);
    const int T = 9;
    const std::vector<double> x = test::to_double(test::rand_vec((size_t)T * h.C, rng));
    const std::vector<double> at0 = ref::shared_kv_forward(h.ref_dims(), h.ref_params(), x, T, 0);
    const std::vector<double> at37 = ref::shared_kv_forward(h.ref_dims(), h.ref_params(), x, T, 37);
    EXPECT_TRUE(all_close(at37, at0, 0, 1e-11, "y shifted by 37", {T, h.C}));
  }
}

TEST(LayersSharedKv, TrainingForwardMatchesReference) {
  for (bool sinks : {false, true}) {
    SCOPED_TRACE(sinks ? "sinks" : "no sinks");
    Harness h(shared_kv_config(sinks), 5);
    std::mt19937 rng(7);
    const int B = 2, T = 13, C = h.C;
    const std::vector<float> x = test::rand_vec((size_t)B * T * C, rng);
    const std::vector<float> y = h.train(x, B, T, nullptr, nullptr);
    for (int b = 0; b < B; ++b) {
      const std::vector<double> xb(x.begin() + (long)b * T * C, x.begin() + (long)(b + 1) * T * C);
      const std::vector<double> want = ref::shared_kv_forward(h.ref_dims(), h.ref_params(), xb, T);
      const std::vector<float> got(y.begin() + (long)b * T * C, y.begin() + (long)(b + 1) * T * C);
      EXPECT_TRUE(all_close(got, want, 1e-4, 1e-5, "y", {T, C}));
    }
  }
}

TEST(LayersSharedKv, BackwardMatchesFiniteDifferencesOfTheReference) {
  Harness h(shared_kv_config(true), 11);
  std::mt19937 rng(13);
  const int T = 6, C = h.C;
  const std::vector<float> x = test::rand_vec((size_t)T * C, rng);
  const std::vector<float> dy = test::upstream((size_t)T * C, rng);
  std::vector<float> dx;
  h.train(x, 1, T, &dy, &dx);
  const std::vector<double> r = test::to_double(dy);
  std::vector<double> xd = test::to_double(x);
  ref::SharedKvParams rp = h.ref_params();
  auto loss = [&] { return test::dot(r, ref::shared_kv_forward(h.ref_dims(), rp, xd, T)); };
  using test::kGradAtol, test::kGradRtol;
  EXPECT_TRUE(all_close(dx, test::fd_grad(xd, loss), kGradRtol, kGradAtol, "dx"));
  const std::pair<const char*, std::vector<double>*> params[] = {
      {"q_proj", &rp.q_proj}, {"kv_proj", &rp.kv_proj}, {"o_proj", &rp.o_proj}, {"sinks", &rp.sinks}};
  for (const auto& [name, v] : params)
    EXPECT_TRUE(all_close(h.get(name, true), test::fd_grad(*v, loss), kGradRtol, kGradAtol,
                          std::string("d") + name));
}

// Prefill + chunks + single tokens, chunk sizes {1, 3, T, > T}, T = 17 not a multiple of 3,
// rows in one page or in pages of 3: the reference's outputs; the page size changes no bit.
TEST(LayersSharedKv, CachedRowsEqualTheFullForward) {
  Harness h(shared_kv_config(true), 17);
  std::mt19937 rng(19);
  const int T = 17, C = h.C;
  const std::vector<float> x = test::rand_vec((size_t)T * C, rng);
  const std::vector<double> want =
      ref::shared_kv_forward(h.ref_dims(), h.ref_params(), test::to_double(x), T);
  for (const std::vector<int>& chunks :
       {std::vector<int>{5, 3, 1}, {1}, {3, 3, 3, 3, 3, 3}, {17}, {40}}) {
    SCOPED_TRACE("first chunk " + std::to_string(chunks[0]));
    const std::vector<float> one_page = h.cached(x, T, chunks, 64);
    EXPECT_TRUE(all_close(one_page, want, 1e-4, 1e-5, "y", {T, C}));
    EXPECT_EQ(h.cached(x, T, chunks, 3), one_page);
  }
}

// One row of Hkv·D numbers per cached position: decoding T tokens one at a time reads
// Σ_{S=1..T} S rows of Hkv·D·4 bytes — half of what a GQA layer with the same Hkv and D reads
// (2·Hkv·D per position); every query head scores every visible row.
TEST(LayersSharedKv, CountersCountOneRowPerPosition) {
  Harness h(shared_kv_config(false), 23);
  std::mt19937 rng(29);
  const int T = 7;
  const std::vector<float> x = test::rand_vec((size_t)T * h.C, rng);
  WorkCounters c;
  h.cached(x, T, {1}, 64, &c);
  const uint64_t rows = (uint64_t)T * (T + 1) / 2;
  EXPECT_EQ(c.kv_projected, (uint64_t)T);
  EXPECT_EQ(c.qk_scores, rows * (uint64_t)h.H);
  EXPECT_EQ(c.kv_bytes_read, rows * (uint64_t)h.Hkv * h.D * 4);
  EXPECT_EQ(c.attn_macs, rows * (uint64_t)h.H * 2 * h.D);
}

// The kind's refusals are the mixer's (SharedKvAttentionLayer::check_config, which the factory
// calls): the config parses, and every path that builds the layer refuses with one message
// naming the file, the layer and the config.json field: the factory (Model, param counts), the
// KV ledger, and the CLI's `llm0 kv`, `llm0 init` and `llm0 train` (before its tokenizer).
TEST(LayersSharedKv, ConfigKeyRoundTripsAndTheMixerRefusesWhatTheKindLacks) {
  const ModelConfig c = shared_kv_config(false);
  EXPECT_EQ(c.layer(0).kind, LayerKind::SharedKvAttention);
  EXPECT_EQ(c.layer(1).kind, LayerKind::FullAttention);
  EXPECT_EQ(ModelConfig::from_json(c.to_json()).layer(0).kind, LayerKind::SharedKvAttention);
  const std::filesystem::path dir = test::fresh_temp_path("shared_kv", "refusals");
  std::filesystem::create_directories(dir);
  {
    std::ofstream corpus(dir / "corpus.txt");  // documents split by blank lines: train + validation
    for (int i = 0; i < 40; ++i) corpus << "document " << i << ": the cat sat on the mat.\n\n";
  }
  for (const char* key : {"use_qk_norm", "attention_bias", "attn_output_gate"}) {
    SCOPED_TRACE(key);
    nlohmann::json j = c.to_json();
    j[key] = true;
    const std::string want = std::string("layer 0 is shared_kv_attention, which does not implement ") + key;
    const ModelConfig parsed = ModelConfig::from_json(j, "bad.json");
    const auto message = [](auto fn) {
      try {
        fn();
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    for (const std::string& m : {message([&] { make_mixer(parsed, 0); }),
                                 message([&] { kv_ledger(j, {}, "bad.json"); })})
      EXPECT_NE(m.find("bad.json: " + want), std::string::npos) << m;
    const std::string path = (dir / (std::string(key) + ".json")).string();
    std::ofstream(path) << j.dump();
    const std::string q = testing_fixtures::quote(path);
    for (const std::string& args :
         {"kv " + q, "init --config " + q + " --output " + testing_fixtures::quote((dir / "out").string()),
          "train --config " + q + " --data " + testing_fixtures::quote((dir / "corpus.txt").string()) +
              " --out " + testing_fixtures::quote((dir / "run").string()) + " --max-steps 1"}) {
      const testing_fixtures::CmdOut r = testing_fixtures::run_cli(args, dir / "err.txt");
      EXPECT_NE(r.rc, 0) << args;
      EXPECT_NE(r.err.find(path + ": " + want), std::string::npos) << args << ": " << r.err;
      EXPECT_EQ(r.out.find("tokenizer"), std::string::npos) << args << ": " << r.out;
    }
  }
}

}  // namespace
}  // namespace llm0
