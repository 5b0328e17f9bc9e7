// BF16 mixed-precision training (train/precision.h, issue 28): whole-model gradients with BF16
// products against float32 ones, cosine ≥ 0.999 per tensor for every row of tests/kinds/kind_table.json;
// a short fixed-seed run whose BF16 losses stay within 1% of float32's at every 50th step; a run
// resumed in BF16 equals the uninterrupted one bit for bit, and resuming with another explicit
// precision is refused; --precision bf16 without AVX512_BF16 is refused naming the feature
// (ctest reruns the refusal test with LLM0_KERNEL=avx512 and avx2).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "kinds/kind_table.h"
#include "core/check.h"
#include "core/cpu_features.h"
#include "model/init.h"
#include "model_fixtures.h"
#include "train/corpus.h"
#include "train/precision.h"
#include "train/trainer.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

bool have_bf16() { return kernel_isa() == Isa::Avx512Bf16; }

// The gradient of mean cross-entropy (+ aux loss) on a fixed batch, all tensors in store order.
std::vector<float> gradient(Model& m, bool bf16) {
  const int B = 2, T = 16, V = m.config().vocab_size;
  const std::vector<int> tokens = random_tokens(B * T, V, 5), targets = random_tokens(B * T, V, 6);
  m.set_bf16_products(bf16);
  m.params().zero_grad();
  long n = 0;
  m.forward(tokens.data(), targets.data(), B, T, &n);
  m.backward(1.0f / (float)n);
  return {m.params().grad(), m.params().grad() + m.params().size()};
}

// Per tensor, the cosine of the BF16 and float32 gradients of one model from the state training
// starts from (model/init.h); `linear_chunk_size` > 0 sets Gated DeltaNet's chunk (the row's).
void expect_cosine(const ModelConfig& c, const std::string& name, int linear_chunk_size = 0) {
  Model m(c);
  init_weights(m, 21);
  if (linear_chunk_size > 0) m.set_linear_chunk_size(linear_chunk_size);
  const std::vector<float> g32 = gradient(m, false), g16 = gradient(m, true);
  for (const ParamInfo& p : m.params().params()) {
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = p.offset; i < p.offset + p.numel; ++i)
      ab += (double)g32[i] * g16[i], aa += (double)g32[i] * g32[i], bb += (double)g16[i] * g16[i];
    if (aa == 0 && bb == 0) continue;  // a tensor without gradient (deepseek_v3's bias) in both
    // k_proj.bias: adding q·b_k to every score of a softmax row changes nothing, so its exact
    // gradient is 0 and both runs hold rounding noise only (no direction to compare).
    if (p.name.find("k_proj.bias") != std::string::npos) continue;
    EXPECT_GE(ab / std::sqrt(aa * bb), 0.999) << name << ": " << p.name;
  }
}

}  // namespace

// The BF16 products (every linear map, and attention's per-head products: scores, P·V and their
// backward) run everywhere (the scalar tile without AVX512_BF16), so this test needs no special
// CPU; only the trainer refuses --precision bf16 without the hardware. One case per row of
// tests/kinds/kind_table.json (every attention kind that trains: full, sliding, sinks, gate,
// GQA/MQA, MLA, shared-KV; MoE; Gated DeltaNet, whose delta rule stays float32).
class TrainBf16Kinds : public ::testing::TestWithParam<kinds::KindRow> {};

TEST_P(TrainBf16Kinds, GradientCosine) {
  const kinds::KindRow& r = GetParam();
  expect_cosine(r.config, r.name, r.linear_chunk_size);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, TrainBf16Kinds, kinds::every_kind(), kinds::row_name);

// Run with LLM0_KERNEL forcing a level without vdpbf16ps (ctest: train_bf16_refusal_*), or
// plainly on a CPU without it: --precision bf16 is refused naming AVX512_BF16 and the level,
// auto falls back to float32 saying why. With AVX512_BF16 in use: bf16 is granted.
TEST(TrainBf16Refusal, Bf16NeedsAvx512Bf16) {
  try {
    kernel_isa();
  } catch (const Error& e) {
    GTEST_SKIP() << "LLM0_KERNEL names a level this CPU lacks: " << e.what();
  }
  const ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  if (have_bf16()) {
    EXPECT_EQ(choose_precision("bf16", c, 64).precision, TrainPrecision::Bf16);
    return;
  }
  try {
    choose_precision("bf16", c, 64);
    ADD_FAILURE() << "--precision bf16 was not refused at " << isa_name(kernel_isa());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AVX512_BF16"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(isa_name(kernel_isa())), std::string::npos) << e.what();
  }
  const PrecisionChoice a = choose_precision("auto", c, 64);
  EXPECT_EQ(a.precision, TrainPrecision::F32);
  EXPECT_NE(a.reason.find("no AVX512_BF16"), std::string::npos) << a.reason;
  // The program: exit status 1 and the feature named, nothing trained.
  const fs::path dir = test::fresh_temp_path("train_bf16", "refusal");
  fs::create_directories(dir);
  std::ofstream(dir / "c.txt") << "a small corpus of words\n\nand another document here\n";
  std::ofstream(dir / "config.json") << R"({"vocab_size": 280, "hidden_size": 16,
      "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
      "num_key_value_heads": 1, "head_dim": 8, "max_position_embeddings": 32,
      "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  const CmdOut r = run_cli("train --config " + (dir / "config.json").string() + " --data " +
                               (dir / "c.txt").string() + " --out " + (dir / "run").string() +
                               " --max-steps 1 --seq-len 16 --batch-size 2 --precision bf16",
                           dir / "err.txt");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("AVX512_BF16"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "run" / "checkpoint"));
}

namespace {
struct Corpus {
  std::string dir = test::fresh_temp_path("train_bf16", "fixture"), corpus = dir + "/poems.txt",
              config = dir + "/config.json";
  Corpus() {
    fs::create_directories(dir);
    const std::vector<std::string> docs = fortunes_zh_documents();
    std::ofstream out(corpus);
    for (size_t i = 0; i < 400 && i < docs.size(); ++i) out << docs[i] << "\n\n";
    std::ofstream(config) << R"({"vocab_size": 384, "hidden_size": 48, "intermediate_size": 96,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 12,
      "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  }
};

TrainOptions options(const Corpus& f, const std::string& out, const std::string& precision) {
  TrainOptions o;
  o.config = f.config, o.data = f.corpus, o.out = out, o.precision = precision;
  // lr 3e-3: at 1e-2 (the edge of stability for this tiny model) the two precisions' losses
  // drifted 1.5-2% apart within 100 steps, as any rounding difference is amplified there; at 3e-3
  // they stayed within 0.1% (batch 16: a gradient less noisy than batch 4's).
  o.batch_size = 16, o.seq_len = 32, o.max_steps = 100, o.lr = 3e-3, o.min_lr = 3e-4;
  o.warmup_steps = 5, o.eval_every = 50, o.eval_batches = 4, o.checkpoint_every = 50;
  o.log_every = 1, o.quiet = true, o.seed = 7;
  return o;
}
}  // namespace

// A tiny model, 100 steps at a fixed seed (the issue's 300 steps of llm0-small take minutes on
// two cores: run by hand, docs/performance.md): BF16's training loss within 1% of float32's at
// steps 50 and 100, and the final validation loss too. Then resume: BF16 stopped at 50 and resumed equals the uninterrupted BF16 run bit for
// bit (steps 51..100); resuming it with --precision f32 is refused.
TEST(TrainBf16, LossTracksFloat32AndResumeIsBitExact) {
  if (!have_bf16()) GTEST_SKIP() << "--precision bf16 needs AVX512_BF16";
  Corpus f;
  const std::string a = test::fresh_temp_path("train_bf16", "f32"),
                    b = test::fresh_temp_path("train_bf16", "bf16"),
                    c = test::fresh_temp_path("train_bf16", "bf16_resumed");
  const TrainSummary sa = Trainer(options(f, a, "f32")).run();
  const TrainSummary sb = Trainer(options(f, b, "bf16")).run();
  EXPECT_EQ(sb.precision, "bf16");
  EXPECT_EQ(sa.precision, "f32");
  const auto la = test::step_losses(a), lb = test::step_losses(b);
  for (int s : {50, 100}) EXPECT_NEAR(lb.at(s), la.at(s), 0.01 * la.at(s)) << "step " << s;
  EXPECT_NEAR(sb.final_val_loss, sa.final_val_loss, 0.01 * sa.final_val_loss);
  TrainOptions oc = options(f, c, "bf16");
  oc.stop_after = 50;
  Trainer(oc).run();
  TrainOptions wrong = options(f, c, "f32");
  wrong.resume = c, wrong.given = {"--precision"};
  try {
    Trainer(wrong).run();
    ADD_FAILURE() << "resuming a bf16 run with --precision f32 was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("differs from the checkpoint's bf16"), std::string::npos)
        << e.what();
  }
  TrainOptions resumed = options(f, c, "auto");  // auto: the checkpoint's precision
  resumed.resume = c;
  EXPECT_EQ(Trainer(resumed).run().precision, "bf16");
  const auto lc = test::step_losses(c);
  for (int s = 51; s <= 100; ++s) EXPECT_EQ(lb.at(s), lc.at(s)) << "step " << s;
}
