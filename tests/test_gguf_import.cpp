// GGUF import (io/gguf/import.h): for every architecture llm0 exports, a random checkpoint →
// `export gguf` → import gives the same config fields, bitwise the same tensors (F32; BF16 export →
// bitwise the exported BF16) and the same tokenizer ids; the published stories260K (llama2.c →
// llm0 → GGUF in llama.cpp's SentencePiece form → llm0) keeps its tensors, tokenizer.json and
// golden greedy story. Malformed files: gguf_import_errors in test_gguf_import_errors.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/half.h"
#include "gguf_fixtures.h"
#include "io/gguf/export.h"
#include "io/gguf/export_tokenizer.h"
#include "io/gguf/import.h"
#include "io/safetensors.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using namespace testing_fixtures;
using nlohmann::json;

const std::string kConfigs = std::string(LLM0_SOURCE_DIR) + "/configs/";
const std::string kData = std::string(LLM0_SOURCE_DIR) + "/tests/data/stories260K/";

// Lines for the trained test tokenizer (gguf_fixtures.h); text where llm0's own rules and the
// GGUF's "gpt-2" split apart (digit runs, CJK, emoji): test_gguf_import_tokenizer.cpp.
const std::vector<std::string> kSample = {"the cat sat on the mat", "hello world, hello there 123",
                                          "the dog ate the hat<|endoftext|>x", "  spaced\n\ttabs!"};

// Fields a GGUF does not carry (training settings and llm0's chunk size for Gated DeltaNet).
json comparable(const ModelConfig& c) {
  json j = c.to_json();
  for (const char* k : {"router_aux_loss_coef", "moe_balance", "linear_chunk_size", "torch_dtype"})
    j.erase(k);
  return j;
}

ModelConfig vocab300(ModelConfig c) {
  c.vocab_size = 300;  // 290 tokens + 10 padding rows
  c.validate();
  return c;
}

ModelConfig preset(const std::string& file) { return ModelConfig::from_file(kConfigs + file); }

// qwen3next as llama.cpp represents it: experts on every layer, dk = dv (PEERS.md).
ModelConfig qwen3next_config() {
  ModelConfig c = hybrid_moe_config(4);
  c.linear.linear_value_head_dim = c.linear.linear_key_head_dim = 6;
  c.rms_norm_eps = 1e-6;
  return vocab300(c);
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// |got − want| within the error of computing the stored value and undoing it in float32
// (io/gguf/import_tensors.h): (1 + w) − 1 rounds once, by at most 2^-24·|1 + w| (the
// subtraction is exact, Sterbenz); log(−(−exp(x))) rounds twice, glibc's expf and logf within
// 1 ulp each: |Δ| ≤ 2^-23·(|x| + 1), doubled for the ulp of a value just above a power of two.
bool transformed_ok(const std::string& name, float got, float want) {
  const double tol = name.ends_with("A_log") ? std::ldexp(2.0 * (std::fabs(want) + 1), -23)
                                             : std::ldexp(std::fabs(1.0 + want), -24);
  return std::fabs((double)got - want) <= tol;
}

bool qwen3next_transformed(const ModelConfig& c, const std::string& name) {
  return c.unit_offset_norms() && (name.ends_with("A_log") ||
         (name.find("norm.weight") != std::string::npos && name.find("linear_attn") == std::string::npos));
}

struct RoundTrip {
  std::string dir, gguf, out;
};

RoundTrip round_trip(const ModelConfig& cfg, const std::string& name, GgmlType type) {
  RoundTrip r;
  r.dir = make_checkpoint(cfg, name, true);
  r.gguf = test::fresh_temp_path("gguf_import", name + ".gguf");
  r.out = test::fresh_temp_path("gguf_import", name + "_hf");
  export_gguf(r.dir, r.gguf, type);
  const GgufImportSummary s = import_gguf(r.gguf, r.out, DType::F32);
  EXPECT_EQ(s.architecture, gguf_architecture(cfg));
  return r;
}

void expect_same_model(const ModelConfig& cfg, const RoundTrip& r, bool bf16) {
  const ModelConfig back = ModelConfig::from_file(r.out + "/config.json");
  ModelConfig want_cfg = cfg;  // the exporter's GPT-2 style ids: <|endoftext|> ends and begins
  if (want_cfg.eos_token_id < 0) want_cfg.eos_token_id = Tokenizer::load(r.dir + "/tokenizer.json").eos_id();
  if (want_cfg.bos_token_id < 0) want_cfg.bos_token_id = want_cfg.eos_token_id;
  EXPECT_EQ(comparable(back).dump(1), comparable(want_cfg).dump(1));
  const SafetensorsFile want = read_safetensors(r.dir + "/model.safetensors");
  const SafetensorsFile got = read_safetensors(r.out + "/model.safetensors");
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (const auto& [name, w] : want.tensors) {
    const auto it = got.tensors.find(name);
    ASSERT_NE(it, got.tensors.end()) << name;
    const SafetensorsEntry& g = it->second;
    EXPECT_EQ(g.shape, w.shape) << name;
    const bool matrix = w.shape.rank() > 1 && name.find("mlp.gate.weight") == std::string::npos &&
                        name.find("shared_expert_gate") == std::string::npos &&
                        name.find("conv1d") == std::string::npos;  // the exporter keeps these F32
    EXPECT_EQ(g.dtype, bf16 && matrix ? DType::BF16 : DType::F32) << name;
    std::vector<float> expect = w.values;
    if (bf16 && matrix)
      for (float& x : expect) x = bf16_to_float(float_to_bf16(x));
    if (qwen3next_transformed(cfg, name)) {
      for (size_t i = 0; i < expect.size(); ++i)
        ASSERT_TRUE(transformed_ok(name, g.values[i], expect[i])) << name << "[" << i << "]: "
            << g.values[i] << " vs " << expect[i];
    } else {
      EXPECT_TRUE(bitwise_equal(g.values, expect)) << name;
    }
  }
  const Tokenizer a = Tokenizer::load(r.dir + "/tokenizer.json");
  const Tokenizer b = Tokenizer::load(r.out + "/tokenizer.json");
  EXPECT_EQ(b.vocab_size(), a.vocab_size());  // the padding rows are dropped again
  for (const std::string& line : kSample) {
    EXPECT_EQ(b.encode(line), a.encode(line)) << line;
    EXPECT_EQ(b.decode(b.encode(line)), line);
  }
}

struct Row {
  const char* name;
  ModelConfig cfg;
};

std::vector<Row> rows() {
  ModelConfig qwen3moe = moe_model_config("qwen3_moe");
  qwen3moe.layers[0].ffn = FfnKind::Moe, qwen3moe.moe.mlp_only_layers.clear();
  ModelConfig v3 = moe_model_config("deepseek_v3");
  v3.rms_norm_eps = 1e-6;
  ModelConfig mla = mla_model_config(0);
  mla.rms_norm_eps = 1e-6;
  ModelConfig qwen3_tied = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true);
  qwen3_tied.tie_word_embeddings = true;
  return {
      {"llama_tiny", vocab300(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false))},
      {"llama_small", preset("llm0-small.json")},
      {"qwen3_tied", vocab300(qwen3_tied)},
      {"qwen3moe", vocab300(qwen3moe)},
      {"qwen3moe_bench", preset("bench-qwen3moe.json")},
      {"deepseek2_dense", vocab300(mla)},
      {"deepseek2_small_mla", preset("llm0-small-mla.json")},
      {"deepseek_v3_moe", vocab300(v3)},
      {"qwen3next", qwen3next_config()},
  };
}

TEST(GgufImport, ExportThenImportGivesTheSameModelForEveryArchitecture) {
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    expect_same_model(row.cfg, round_trip(row.cfg, row.name, GgmlType::F32), false);
  }
}

TEST(GgufImport, Bf16ExportImportsBitwiseAsBf16) {
  for (const Row& row : rows()) {
    if (std::string(row.name).find("small") != std::string::npos) continue;  // tiny rows suffice
    SCOPED_TRACE(row.name);
    expect_same_model(row.cfg, round_trip(row.cfg, std::string(row.name) + "_bf16", GgmlType::BF16), true);
  }
}

// qwen2, which llm0 does not export (llama.cpp's qwen2 has q/k/v biases, the exporter none): a
// GGUF written here as convert_hf_to_gguf.py's Qwen2Model does (attn_{q,k,v}.bias, NEOX RoPE rows
// unpermuted) imports to the same config and bitwise the same tensors.
TEST(GgufImport, Qwen2WithQkvBiasesImports) {
  ModelConfig cfg = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  cfg.model_type = "qwen2";
  cfg = vocab300(cfg);
  const std::string dir = make_checkpoint(cfg, "qwen2", true);
  const std::unique_ptr<Model> m = load_model(dir);
  GgufWriter g;
  const auto u32 = [](int v) { return GgufValue::of_u32((uint32_t)v); };
  g.add("general.architecture", GgufValue::of_string("qwen2"));
  g.add("qwen2.context_length", u32(cfg.max_position_embeddings));
  g.add("qwen2.embedding_length", u32(cfg.hidden_size));
  g.add("qwen2.block_count", u32(cfg.num_hidden_layers));
  g.add("qwen2.feed_forward_length", u32(cfg.intermediate_size));
  g.add("qwen2.attention.head_count", u32(cfg.num_attention_heads));
  g.add("qwen2.attention.head_count_kv", u32(cfg.num_key_value_heads));
  g.add("qwen2.attention.key_length", u32(cfg.head_dim));
  g.add("qwen2.attention.value_length", u32(cfg.head_dim));
  g.add("qwen2.rope.freq_base", GgufValue::of_f32((float)cfg.rope_theta));
  g.add("qwen2.attention.layer_norm_rms_epsilon", GgufValue::of_f32((float)cfg.rms_norm_eps));
  add_gguf_tokenizer(g, Tokenizer::load(dir + "/tokenizer.json"), dir + "/tokenizer.json", cfg);
  size_t biases = 0;
  for (const ParamInfo& p : m->params().params()) {
    const bool bias = p.name.ends_with(".bias");
    biases += bias;
    std::string name = gguf_tensor_name(bias ? p.name.substr(0, p.name.size() - 5) + ".weight" : p.name);
    if (bias) name = name.substr(0, name.size() - 7) + ".bias";
    g.add_tensor(name, p.shape.dims, GgmlType::F32, m->params().value(p.name));
  }
  EXPECT_EQ(biases, 3u * cfg.num_hidden_layers);  // q, k, v per layer; o_proj has none
  RoundTrip r{dir, test::fresh_temp_path("gguf_import", "qwen2.gguf"), test::fresh_temp_path("gguf_import", "qwen2_hf")};
  g.write(r.gguf);
  EXPECT_EQ(import_gguf(r.gguf, r.out).architecture, "qwen2");
  expect_same_model(cfg, r, false);
}

// stories260K: llama2.c → llm0 → GGUF (SentencePiece form) → llm0 keeps every tensor, the
// tokenizer.json (also when built from the pieces and scores alone, without
// tokenizer.huggingface.json, as from a llama.cpp-written file), and llama2.c's greedy story.
TEST(GgufImport, Stories260KSurvivesTheGgufRoundTrip) {
  const fs::path dir = test::fresh_temp_path("gguf_import", "s260");
  fs::create_directories(dir);
  const std::string conv = (dir / "conv").string(), gguf = (dir / "s260.gguf").string();
  const std::string back = (dir / "back").string();
  ASSERT_EQ(run_cli("convert --from llama2c " + quote(kData + "stories260K.bin") + " --tokenizer " +
                    quote(kData + "tok512.bin") + " --output " + quote(conv), dir / "err.txt").rc, 0);
  ASSERT_EQ(run_cli("export gguf --model " + quote(conv) + " --output " + quote(gguf), dir / "err.txt").rc, 0);
  const GgufFile f = read_gguf(gguf);
  EXPECT_EQ(f.at("tokenizer.ggml.model").s, "llama");
  EXPECT_EQ(f.at("tokenizer.ggml.scores").array.size(), 512u);
  const auto c = run_cli("convert --from gguf " + quote(gguf) + " --output " + quote(back), dir / "err.txt");
  ASSERT_EQ(c.rc, 0) << c.err;
  const SafetensorsFile want = read_safetensors(conv + "/model.safetensors");
  const SafetensorsFile got = read_safetensors(back + "/model.safetensors");
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (const auto& [name, w] : want.tensors)
    EXPECT_TRUE(bitwise_equal(got.tensors.at(name).values, w.values)) << name;
  EXPECT_EQ(json::parse(read_file(back + "/tokenizer.json")), json::parse(read_file(conv + "/tokenizer.json")));
  const std::string bare_gguf = (dir / "bare.gguf").string(), bare = (dir / "bare").string();
  write_gguf(without_key(f, "tokenizer.huggingface.json"), bare_gguf);
  import_gguf(bare_gguf, bare);
  EXPECT_EQ(json::parse(read_file(bare + "/tokenizer.json")), json::parse(read_file(conv + "/tokenizer.json")));
  EXPECT_EQ(json::parse(read_file(back + "/generation_config.json")),
            json::parse(read_file(conv + "/generation_config.json")));
  const Tokenizer a = Tokenizer::load(conv + "/tokenizer.json"), b = Tokenizer::load(back + "/tokenizer.json");
  for (const std::string line : {"Once upon a time, there was a little girl named Lily.",
                                 "She liked to play outside 123 times! 你好 \xF0\x9F\x98\x80", "  two  spaces"}) {
    EXPECT_EQ(b.encode_with_special_tokens(line), a.encode_with_special_tokens(line)) << line;
    EXPECT_EQ(b.decode(b.encode(line)), a.decode(a.encode(line))) << line;
  }
  const json golden = json::parse(read_file(kData + "greedy_200.json"));
  const auto g = run_cli("generate --model " + quote(back) + " --prompt '' --temperature 0 "
                         "--max-new-tokens 200 --json", dir / "err.txt");
  ASSERT_EQ(g.rc, 0) << g.err;
  const json r = json::parse(g.out);
  EXPECT_EQ(r["prompt_ids"], json::array({1}));
  EXPECT_EQ(r["generated_ids"], golden["ids"]);
  EXPECT_EQ(r["text"], golden["text"]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llm0
