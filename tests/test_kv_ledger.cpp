// KV ledger: the course's published figures, exactly, from configs/reference/*.json; error cases
// naming the field and the file; and `llm0 kv` end to end (JSON output and exit status).
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <cstdio>
#include <string>

#include "core/check.h"
#include "ledger/kv_format.h"
#include "ledger/kv_ledger.h"

namespace llm0 {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

std::string ref(const std::string& name) {
  return std::string(LLM0_SOURCE_DIR) + "/configs/reference/" + name;
}

KvLedger load(const std::string& name, KvOptions opt = {}) {
  return kv_ledger_from_file(ref(name), opt);
}

KvOptions as(const char* kind, std::optional<int64_t> context = std::nullopt) {
  KvOptions opt;
  opt.as = parse_kv_as(kind);
  opt.context = context;
  return opt;
}

int64_t layers_of(const KvLedger& l, const std::string& type) {
  for (const KvLayerGroup& g : l.groups)
    if (g.layer_type == type) return g.layers;
  return 0;
}

// The message of the llm0::Error `fn` throws ("" when it does not throw).
template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(KvLedger, Llama3_8B) {
  const KvLedger l = load("llama-3-8b.json");
  EXPECT_EQ(l.attention_kind, AttentionKind::kGQA);
  EXPECT_EQ(layers_of(l, "full_attention"), 32);
  EXPECT_EQ(l.num_key_value_heads, 8);
  EXPECT_EQ(l.head_dim, 128);
  EXPECT_EQ(l.kv_bytes_per_token, 131072u);
  EXPECT_EQ(l.context, 8192);
  EXPECT_EQ(l.kv_bytes_at_context, 1 * GiB);
  EXPECT_EQ(l.fixed_state_bytes, 0u);
}

TEST(KvLedger, DtypeScalesBytes) {
  KvOptions opt;
  opt.dtype = ElementType::FP8;
  EXPECT_EQ(load("llama-3-8b.json", opt).kv_bytes_per_token, 65536u);
  opt.dtype = ElementType::F32;
  EXPECT_EQ(load("llama-3-8b.json", opt).kv_bytes_per_token, 262144u);
  opt.dtype = parse_element_type("fp16");
  EXPECT_EQ(load("llama-3-8b.json", opt).kv_bytes_per_token, 131072u);
}

TEST(KvLedger, DeepSeekLLM67B) {
  const KvLedger l = load("deepseek-llm-67b.json");
  EXPECT_EQ(layers_of(l, "full_attention"), 95);
  EXPECT_EQ(l.num_attention_heads, 64);
  EXPECT_EQ(l.kv_bytes_per_token, 389120u);
  const KvLedger mha = load("deepseek-llm-67b.json", as("mha", int64_t{1} << 20));
  EXPECT_EQ(mha.attention_kind, AttentionKind::kMHA);
  EXPECT_EQ(mha.kv_bytes_per_token, 3112960u);
  KvOptions at_1m;
  at_1m.context = int64_t{1} << 20;
  EXPECT_EQ(load("deepseek-llm-67b.json", at_1m).kv_bytes_at_context, 380 * GiB);
}

TEST(KvLedger, DeepSeekV2Mla) {
  const KvLedger l = load("deepseek-v2.json");
  EXPECT_EQ(l.attention_kind, AttentionKind::kMLA);
  EXPECT_EQ(layers_of(l, "full_attention"), 60);
  EXPECT_EQ(l.kv_bytes_per_token, 69120u);  // 60 × (512 + 64) × 2
  // Expanded: 128 heads × (128 + 64 + 128) × 2 B × 60 layers.
  EXPECT_EQ(l.mla_expanded_bytes_per_token, 128u * 320 * 2 * 60);
  EXPECT_NE(l.groups[0].formula.find("kv_lora_rank 512"), std::string::npos);
}

// Lenient: without qk_nope_head_dim the latent bytes are still computed; only the expanded line
// says what is unknown (issue 16 part 3).
TEST(KvLedger, MlaWithoutPerHeadSizesStillCountsTheLatent) {
  nlohmann::json c = nlohmann::json::parse(
      std::ifstream(std::string(LLM0_SOURCE_DIR) + "/configs/reference/deepseek-v2.json"));
  c.erase("qk_nope_head_dim");
  const KvLedger l = kv_ledger(c, {}, "no-nope.json");
  EXPECT_EQ(l.kv_bytes_per_token, 69120u);
  EXPECT_EQ(l.mla_expanded_bytes_per_token, 0u);
  EXPECT_NE(l.mla_expanded_formula.find("qk_nope_head_dim"), std::string::npos);
  EXPECT_TRUE(to_json(l)["mla_expanded"]["bytes_per_token"].is_null());
}

TEST(KvLedger, DeepSeekV3MtpNotCounted) {
  const KvLedger l = load("deepseek-v3.json");
  EXPECT_EQ(l.num_hidden_layers, 61);
  EXPECT_EQ(l.mtp_layers_not_counted, 1);
  EXPECT_EQ(l.kv_bytes_per_token, 70272u);  // 61 × 576 × 2
  // --as on MLA: per-head K = 128 + 64, V = 128, as many KV heads as asked.
  EXPECT_EQ(load("deepseek-v3.json", as("mqa")).kv_bytes_per_token, 61u * 320 * 2);
}

TEST(KvLedger, MistralSlidingWindowStopsGrowing) {
  KvOptions at_32k;
  at_32k.context = 32768;
  KvOptions at_4k;
  at_4k.context = 4096;
  const KvLedger l = load("mistral-7b-v0.1.json", at_32k);
  EXPECT_EQ(l.sliding_window, 4096);
  EXPECT_EQ(layers_of(l, "sliding_attention"), 32);
  EXPECT_EQ(l.kv_bytes_per_token, 131072u);
  EXPECT_EQ(l.kv_bytes_at_context, load("mistral-7b-v0.1.json", at_4k).kv_bytes_at_context);
  EXPECT_EQ(l.kv_bytes_at_context, 4096u * 131072);
  at_4k.context = 1000;  // below the window it still grows
  EXPECT_EQ(load("mistral-7b-v0.1.json", at_4k).kv_bytes_at_context, 1000u * 131072);
}

TEST(KvLedger, Qwen3DenseAndMoe) {
  const KvLedger dense = load("qwen3-8b.json");  // use_sliding_window: false
  EXPECT_EQ(dense.sliding_window, 0);
  EXPECT_EQ(dense.kv_bytes_per_token, 36u * 2 * 8 * 128 * 2);
  EXPECT_EQ(load("qwen3-30b-a3b.json").kv_bytes_per_token, 48u * 2 * 4 * 128 * 2);
}

TEST(KvLedger, Qwen3Next80B) {
  const KvLedger l = load("qwen3-next-80b-a3b.json");
  EXPECT_TRUE(l.hybrid);
  EXPECT_EQ(l.attention, "hybrid: GQA + linear attention");
  EXPECT_EQ(layers_of(l, "full_attention"), 12);
  EXPECT_EQ(layers_of(l, "linear_attention"), 36);
  EXPECT_EQ(l.kv_bytes_per_token, 24576u);
  EXPECT_EQ(l.linear_state_bytes, 36u * 32 * 128 * 128 * 4);
  EXPECT_EQ(l.conv_channels, 2 * 16 * 128 + 32 * 128);
  EXPECT_EQ(l.conv_window_positions, 3);
  EXPECT_EQ(l.conv_state_bytes, 36u * 8192 * 3 * 2);
}

// A kind with no field formula (llm0's shared-KV attention) is counted by its mixer's CacheSpec:
// Hkv·D numbers per token and layer (one row is K and V), half of the GQA preset's 2·Hkv·D; the
// summary names the kind from the layers (it said "GQA" when the fields alone were read).
TEST(KvLedger, SharedKvFromTheMixersCacheSpec) {
  const std::string path = std::string(LLM0_SOURCE_DIR) + "/configs/llm0-shared-kv.json";
  const KvLedger l = kv_ledger_from_file(path, {});
  EXPECT_EQ(layers_of(l, "shared_kv_attention"), 6);
  EXPECT_EQ(l.kv_bytes_per_token, 6u * 2 * 32 * 2);  // L × Hkv × D × 2 B (bf16)
  EXPECT_EQ(l.attention, "shared-KV attention");
  EXPECT_FALSE(l.hybrid);
  EXPECT_NE(l.groups[0].formula.find("one K row of 64 numbers, no V row"), std::string::npos)
      << l.groups[0].formula;
  KvOptions mha = as("mha");
  EXPECT_EQ(kv_ledger_from_file(path, mha).kv_bytes_per_token, 6u * 8 * 32 * 2);  // Hkv = H
  nlohmann::json c = nlohmann::json::parse(std::ifstream(path));
  c["layer_types"][1] = "full_attention";
  const KvLedger mixed = kv_ledger(c, {}, "mixed.json");
  EXPECT_EQ(mixed.attention, "mixed: shared-KV attention + GQA");
  EXPECT_EQ(mixed.kv_bytes_per_token, 5u * 2 * 32 * 2 + 2u * 2 * 32 * 2);
}

TEST(KvLedger, CourseAnchor) {
  const KvLedger l = load("course-anchor-hybrid.json");
  EXPECT_EQ(layers_of(l, "full_attention"), 16);
  EXPECT_EQ(layers_of(l, "linear_attention"), 48);
  EXPECT_EQ(l.kv_bytes_per_token, 64 * KiB);
  EXPECT_EQ(l.context, 262144);
  EXPECT_EQ(l.kv_bytes_at_context, 16 * GiB);
  EXPECT_EQ(l.linear_state_bytes, 144 * MiB);
  EXPECT_EQ(l.fixed_state_bytes, l.linear_state_bytes + l.conv_state_bytes);
  const KvLedger mha = load("course-anchor-hybrid.json", as("mha"));
  EXPECT_EQ(mha.kv_bytes_per_token, 384 * KiB);
  EXPECT_EQ(mha.kv_bytes_at_context, 96 * GiB);
  EXPECT_EQ(mha.linear_state_bytes, 144 * MiB);  // --as leaves linear layers alone
  const KvLedger mqa = load("course-anchor-hybrid.json", as("mqa"));
  EXPECT_EQ(mqa.kv_bytes_per_token, 16 * KiB);
  EXPECT_EQ(mqa.kv_bytes_at_context, 4 * GiB);
  EXPECT_EQ(load("course-anchor-hybrid.json", as("gqa:8")).kv_bytes_per_token, 128 * KiB);
}

TEST(KvLedger, DefaultsAndPatterns) {
  // head_dim = hidden_size / num_attention_heads; num_key_value_heads = num_attention_heads.
  const nlohmann::json c = {{"model_type", "mystery"}, {"hidden_size", 96},
                            {"num_attention_heads", 6}, {"num_hidden_layers", 5},
                            {"max_position_embeddings", 100}};
  const KvLedger l = kv_ledger(c, {});
  EXPECT_EQ(l.attention_kind, AttentionKind::kMHA);
  EXPECT_EQ(l.kv_bytes_per_token, 5u * 2 * 6 * 16 * 2);
  // Gemma-3 style: every 3rd layer global, others slide over 10 tokens.
  nlohmann::json g = c;
  g["sliding_window"] = 10, g["sliding_window_pattern"] = 3, g["num_hidden_layers"] = 6;
  const KvLedger s = kv_ledger(g, {});
  EXPECT_EQ(layers_of(s, "sliding_attention"), 4);
  EXPECT_EQ(s.kv_bytes_at_context, (2u * 100 + 4u * 10) * 2 * 6 * 16 * 2);
}

TEST(KvLedger, Errors) {
  nlohmann::json c = {{"hidden_size", 64}, {"num_attention_heads", 8},
                      {"num_key_value_heads", 3}, {"num_hidden_layers", 2},
                      {"max_position_embeddings", 16}};
  std::string msg = error_of([&] { kv_ledger(c, {}, "bad.json"); });
  EXPECT_NE(msg.find("not divisible by num_key_value_heads=3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;
  c.erase("num_hidden_layers");
  msg = error_of([&] { kv_ledger(c, {}, "bad.json"); });
  EXPECT_NE(msg.find("missing field \"num_hidden_layers\""), std::string::npos) << msg;
  msg = error_of([&] { load("llama-3-8b.json", as("mha", -1)); });
  EXPECT_NE(msg.find("context must be >= 0"), std::string::npos) << msg;
  msg = error_of([&] { load("llama-3-8b.json", as("gqa:5")); });
  EXPECT_NE(msg.find("gqa:5"), std::string::npos) << msg;
  msg = error_of([&] { parse_element_type("int4"); });
  EXPECT_NE(msg.find("int4"), std::string::npos) << msg;
  msg = error_of([&] { kv_ledger_from_file(ref("no-such.json"), {}); });
  EXPECT_NE(msg.find("no-such.json"), std::string::npos) << msg;
  nlohmann::json h = {{"num_attention_heads", 4}, {"num_hidden_layers", 2}, {"head_dim", 8},
                      {"max_position_embeddings", 16}, {"full_attention_interval", 2}};
  msg = error_of([&] { kv_ledger(h, {}, "hybrid.json"); });
  EXPECT_NE(msg.find("missing field \"linear_num_value_heads\""), std::string::npos) << msg;
}

TEST(KvFormat, ThousandsAndUnits) {
  EXPECT_EQ(format_thousands(0), "0");
  EXPECT_EQ(format_thousands(131072), "131,072");
  EXPECT_EQ(format_thousands(1073741824), "1,073,741,824");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(384 * KiB), "384 KiB");
  EXPECT_EQ(format_bytes(69120), "67.5 KiB");
  EXPECT_EQ(format_bytes(380 * GiB), "380 GiB");
}

// Runs `cmd` through the shell; returns its exit status and stdout (+ stderr when asked).
int run(const std::string& cmd, std::string& out) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  out.clear();
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  return pclose(p);
}

TEST(KvCli, JsonEndToEnd) {
  std::string out;
  const std::string cmd = std::string(LLM0_CLI) + " kv " + ref("course-anchor-hybrid.json") +
                          " " + ref("deepseek-llm-67b.json") + " --as mha --json --threads 1";
  ASSERT_EQ(run(cmd, out), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["kv_bytes_per_token"].get<uint64_t>(), 384 * KiB);
  EXPECT_EQ(j[0]["kv_bytes_at_context"].get<uint64_t>(), 96 * GiB);
  EXPECT_EQ(j[1]["kv_bytes_per_token"].get<uint64_t>(), 3112960u);
  ASSERT_EQ(run(std::string(LLM0_CLI) + " kv " + ref("llama-3-8b.json"), out), 0);
  EXPECT_NE(out.find("131,072 B (128 KiB)"), std::string::npos) << out;
}

TEST(KvCli, BadInputFails) {
  std::string out;
  const std::string dir = ::testing::TempDir();
  const std::string bad = dir + "/kv_bad_config.json";
  FILE* f = std::fopen(bad.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("{\"hidden_size\": 64, \"num_attention_heads\": 4}", f);
  std::fclose(f);
  EXPECT_NE(run(std::string(LLM0_CLI) + " kv " + bad + " 2>&1", out), 0);
  EXPECT_NE(out.find("num_hidden_layers"), std::string::npos) << out;
  EXPECT_NE(out.find("kv_bad_config.json"), std::string::npos) << out;
  EXPECT_NE(run(std::string(LLM0_CLI) + " kv " + ref("llama-3-8b.json") +
                    " --context=-5 2>&1", out), 0);
  EXPECT_NE(out.find("context"), std::string::npos) << out;
}

}  // namespace
}  // namespace llm0
