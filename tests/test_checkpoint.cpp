// Checkpoint directories: save -> load -> identical logits; Hugging Face-style BF16/F16
// checkpoints (extra config fields, tied Qwen3 without lm_head) load to the expected values; bad
// directories give errors naming the problem; `llm0 init` + `llm0 forward` end to end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/half.h"
#include "io/checkpoint.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "model/init.h"
#include "model_fixtures.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

std::string temp_dir(const std::string& name) { return test::fresh_temp_path("ckpt", name); }

std::vector<float> logits_of(Model& m, const std::vector<int>& tokens) {
  std::vector<int> t((size_t)tokens.size(), -1);
  m.forward(tokens.data(), t.data(), 1, (int)tokens.size());
  return {m.logits(), m.logits() + tokens.size() * (size_t)m.config().vocab_size};
}

// Writes `model` as a Hugging Face export would: config.json with extra fields, tensors in dtype.
void write_hf_style(const Model& m, const std::string& dir, DType dtype) {
  fs::create_directories(dir);
  nlohmann::json j = m.config().to_json();
  j.erase("position_embedding_type"), j.erase("norm_type"), j.erase("use_qk_norm");
  j["torch_dtype"] = dtype == DType::BF16 ? "bfloat16" : "float16";
  j["transformers_version"] = "4.51.0", j["rope_scaling"] = nullptr, j["use_cache"] = true;
  std::ofstream(dir + "/config.json") << j.dump(2);
  std::vector<TensorRef> refs;
  for (const ParamInfo& p : m.params().params())
    refs.push_back({p.name, p.shape, m.params().data() + p.offset});
  write_safetensors(dir + "/model.safetensors", refs, {{"format", "pt"}}, dtype);
}

void round_weights(Model& m, DType dtype) {
  float* w = m.params().data();
  for (size_t i = 0; i < m.params().size(); ++i)
    w[i] = dtype == DType::BF16 ? bf16_to_float(float_to_bf16(w[i])) : fp16_to_float(float_to_fp16(w[i]));
}

}  // namespace

TEST(Checkpoint, SaveLoadGivesIdenticalLogits) {
  Model m(gpt2_config());
  init_weights(m, 42);
  const std::string dir = temp_dir("roundtrip");
  save_checkpoint(m, dir);
  auto loaded = load_model(dir);
  const std::vector<int> tokens = random_tokens(9, m.config().vocab_size, 1);
  EXPECT_EQ(logits_of(m, tokens), logits_of(*loaded, tokens));
  EXPECT_FALSE(fs::exists(dir + ".tmp"));
}

TEST(Checkpoint, HuggingFaceStyleBf16AndF16Load) {
  for (DType dtype : {DType::BF16, DType::F16}) {
    // Qwen3 layout: QK-norm, tied embeddings (no lm_head.weight in the file).
    ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true);
    c.tie_word_embeddings = true;
    Model m(c);
    random_weights(m, 5, 0.2);
    const std::string dir = temp_dir(dtype == DType::BF16 ? "bf16" : "f16");
    write_hf_style(m, dir, dtype);
    auto loaded = load_model(dir);
    EXPECT_TRUE(loaded->config().use_qk_norm);  // model_type qwen3 implies QK-norm
    round_weights(m, dtype);                    // the expected values: float32 -> dtype -> float32
    for (size_t i = 0; i < m.params().size(); ++i)
      ASSERT_EQ(m.params().data()[i], loaded->params().data()[i]) << "float " << i;
    const std::vector<int> tokens = random_tokens(7, c.vocab_size, 2);
    EXPECT_EQ(logits_of(m, tokens), logits_of(*loaded, tokens));
  }
}

TEST(Checkpoint, BadDirectoriesNameTheProblem) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  init_weights(m, 1);
  const std::string dir = temp_dir("bad");
  save_checkpoint(m, dir);
  auto expect_error = [&](const std::string& needle) {
    try {
      load_model(dir);
      ADD_FAILURE() << "no error, expected one mentioning " << needle;
    } catch (const llm0::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  EXPECT_THROW(load_model(dir + "-missing"), llm0::Error);
  // head_dim that disagrees with the weights
  nlohmann::json j = m.config().to_json();
  j["head_dim"] = 12;
  std::ofstream(dir + "/config.json") << j.dump();
  expect_error("has shape [48, 28] but the config implies [24, 28]");
  // heads not dividing
  j = m.config().to_json(), j["num_key_value_heads"] = 3;
  std::ofstream(dir + "/config.json") << j.dump();
  expect_error("num_key_value_heads");
  // missing required field
  j = m.config().to_json(), j.erase("hidden_size");
  std::ofstream(dir + "/config.json") << j.dump();
  expect_error("hidden_size");
  // missing tensor / unexpected tensor
  j = m.config().to_json();
  std::ofstream(dir + "/config.json") << j.dump();
  std::vector<TensorRef> refs;
  for (const ParamInfo& p : m.params().params())
    if (p.name != "model.norm.weight") refs.push_back({p.name, p.shape, m.params().data() + p.offset});
  write_safetensors(dir + "/model.safetensors", refs);
  expect_error("model.norm.weight");
  const float x = 1;
  refs.push_back({"model.norm.weight", Shape{m.config().hidden_size}, m.params().value("model.norm.weight")});
  refs.push_back({"model.layers.9.extra.weight", Shape{1}, &x});
  write_safetensors(dir + "/model.safetensors", refs);
  expect_error("model.layers.9.extra.weight");
  // truncated weights file
  refs.pop_back();
  write_safetensors(dir + "/model.safetensors", refs);
  fs::resize_file(dir + "/model.safetensors", fs::file_size(dir + "/model.safetensors") - 100);
  expect_error("model.safetensors");
}

TEST(Checkpoint, CliInitThenForwardWritesLogitsNpy) {
  const std::string dir = temp_dir("cli");
  fs::create_directories(dir);
  Model ref(tiny_config(Heads::MQA, PositionKind::Rope, 0.25, false));
  std::ofstream(dir + "/config.json") << ref.config().to_json().dump();
  const std::string cli = LLM0_CLI;
  const std::string model = dir + "/model", npy = dir + "/logits.npy";
  ASSERT_EQ(std::system((cli + " init --config " + dir + "/config.json --seed 3 --output " + model +
                         " --threads 1 > /dev/null").c_str()), 0);
  ASSERT_EQ(std::system((cli + " forward --model " + model + " --tokens '1 2 3 60' --output " + npy +
                         " > /dev/null").c_str()), 0);
  Tensor logits = read_npy(npy);
  ASSERT_EQ(logits.shape(), (Shape{4, ref.config().vocab_size}));
  init_weights(ref, 3);
  const std::vector<float> expect = logits_of(ref, {1, 2, 3, 60});
  for (size_t i = 0; i < expect.size(); ++i) ASSERT_NEAR(logits.data()[i], expect[i], 1e-5) << i;
  // A token id >= vocab_size and a malformed list fail with a message and a non-zero exit.
  EXPECT_NE(std::system((cli + " forward --model " + model + " --tokens '1 61' --output " + npy +
                         " 2> " + dir + "/err.txt").c_str()), 0);
  std::ifstream err(dir + "/err.txt");
  const std::string msg((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(msg.find("vocab_size"), std::string::npos) << msg;
  EXPECT_NE(std::system((cli + " forward --model " + model + " --tokens '1 x' --output " + npy +
                         " 2>/dev/null").c_str()), 0);
}

// `llm0 forward --chunks 5,3,1` (the cached path: prefill 5, chunks 3 and 1, then single tokens)
// writes the full forward's logits, for a model with sliding layers (ring caches, W = 4 < the
// chunks' reach) and sinks, from an F32 and a Hugging Face style BF16 checkpoint (run in BF16:
// `--weights-dtype auto`), with a float32 cache (`--kv-dtype f32`; a BF16 cache rounds K/V, which
// the full forward does not: test_bf16_cli.cpp bounds that difference).
TEST(Checkpoint, CliForwardChunksEqualsFullForward) {
  ModelConfig c = sliding_config(4, {1, 0, 1}, true, /*qwen2=*/true);
  for (DType dtype : {DType::F32, DType::BF16}) {
    const std::string dir = temp_dir(dtype == DType::F32 ? "chunks_f32" : "chunks_bf16");
    Model m(c);
    random_weights(m, 9, 0.3);
    write_hf_style(m, dir, dtype);
    const std::string cli = LLM0_CLI, full = dir + "/full.npy", cached = dir + "/cached.npy";
    const std::string ids = "'3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8'";  // T = 19
    ASSERT_EQ(std::system((cli + " forward --model " + dir + " --tokens " + ids + " --output " +
                           full + " > /dev/null").c_str()), 0);
    ASSERT_EQ(std::system((cli + " forward --model " + dir + " --tokens " + ids + " --output " +
                           cached + " --chunks 5,3,1 --kv-dtype f32 > /dev/null").c_str()), 0);
    const Tensor a = read_npy(full), b = read_npy(cached);
    ASSERT_EQ(a.shape(), b.shape());
    ASSERT_EQ(a.shape(), (Shape{19, c.vocab_size}));
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
      worst = std::max(worst, (double)std::fabs(a.data()[i] - b.data()[i])),
      scale = std::max(scale, (double)std::fabs(a.data()[i]));
    // 1e-4 of the logit scale: the BF16 kernels split x into two BF16 halves (bf16_kernels.h)
    EXPECT_LT(worst, 1e-4 * std::max(1.0, scale)) << (dtype == DType::F32 ? "f32" : "bf16");
    EXPECT_GT(std::fabs(a.data()[0] - a.data()[c.vocab_size]), 0.0f);  // rows differ: not vacuous
  }
  const std::string dir = temp_dir("chunks_f32");
  EXPECT_NE(std::system((std::string(LLM0_CLI) + " forward --model " + dir + " --tokens '1 2' " +
                         "--output " + dir + "/x.npy --chunks 2,0 2>/dev/null").c_str()), 0);
}
