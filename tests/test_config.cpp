// config.json parsing: required fields, no silent defaults for eps/theta, integers that would
// wrap or truncate, odd rotary dims, unsupported RoPE scaling — each a clear error naming the
// field; valid Hugging Face configs (extra fields, head_dim defaulted) parse.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "config/config.h"
#include "config_errors.h"
#include "core/check.h"

using namespace llm0;

namespace {
nlohmann::json base() {
  return {{"vocab_size", 100}, {"hidden_size", 64},       {"intermediate_size", 96},
          {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"max_position_embeddings", 128}, {"rms_norm_eps", 1e-6}, {"rope_theta", 5e5},
          {"transformers_version", "4.51.0"}, {"rope_scaling", nullptr}};
}

using test::expect_config_error;
void expect_error(const nlohmann::json& j, const std::string& needle) {
  expect_config_error(j, needle);
}
}  // namespace

TEST(Config, HuggingFaceFieldsAreReadNotDefaulted) {
  const ModelConfig c = ModelConfig::from_json(base());
  EXPECT_EQ(c.head_dim, 16);  // hidden_size / num_attention_heads
  EXPECT_DOUBLE_EQ(c.rope_theta, 5e5);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_EQ(c.rotary_dim(), 16);
  for (const char* field : {"rms_norm_eps", "rope_theta", "vocab_size", "hidden_size"}) {
    nlohmann::json j = base();
    j.erase(field);
    expect_error(j, field);
  }
}

TEST(Config, IntegersNeverWrapOrTruncate) {
  nlohmann::json j = base();
  j["hidden_size"] = 4294967360ULL;  // 2^32 + 64 would wrap to 64
  expect_error(j, "hidden_size");
  j = base(), j["hidden_size"] = 64.5;
  expect_error(j, "must be an integer");
  j = base(), j["num_hidden_layers"] = -1;
  expect_error(j, "num_hidden_layers");
}

TEST(Config, RotaryDimsMustBeEvenAndScalingIsRefused) {
  nlohmann::json j = base();
  j["head_dim"] = 15;
  expect_error(j, "must be even");
  j = base(), j["partial_rotary_factor"] = 0.1875;  // 16 * 0.1875 = 3
  expect_error(j, "must be even");
  j = base(), j["partial_rotary_factor"] = 0.25;
  EXPECT_EQ(ModelConfig::from_json(j).rotary_dim(), 4);
  j = base(), j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
  expect_error(j, "rope_scaling");
  j = base(), j["num_key_value_heads"] = 3;
  expect_error(j, "not divisible");
}

namespace {
// Per-layer kinds as a string: 'S' sliding (checking W), 'F' full.
std::string kinds(const ModelConfig& c, int W) {
  std::string s;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const LayerConfig l = c.layer(il);
    EXPECT_EQ(l.sliding_window, l.kind == LayerKind::SlidingAttention ? W : 0) << il;
    s += l.kind == LayerKind::SlidingAttention ? 'S' : 'F';
  }
  return s;
}
}  // namespace

// Sliding layers by each family's rule (HF MistralConfig, Qwen2Config, Gemma3TextConfig-style
// sliding_window_pattern, explicit layer_types), and the round trip through to_json.
TEST(Config, SlidingLayersFollowEachFamilysRule) {
  nlohmann::json j = base();
  j["num_hidden_layers"] = 4;
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FFFF");
  j["model_type"] = "mistral", j["sliding_window"] = 7;  // Mistral: every layer slides
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 7), "SSSS");
  j["sliding_window"] = nullptr;  // Mistral with the window switched off
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FFFF");
  j = base(), j["num_hidden_layers"] = 4, j["model_type"] = "qwen2", j["sliding_window"] = 9;
  j["use_sliding_window"] = false, j["max_window_layers"] = 1;  // Qwen2 default: off
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FFFF");
  j.erase("use_sliding_window");  // HF Qwen2Config: use_sliding_window defaults to false
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FFFF");
  j["use_sliding_window"] = true, j.erase("max_window_layers");  // max_window_layers defaults to 28
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FFFF");
  j["max_window_layers"] = 1;
  j["use_sliding_window"] = true;  // layers il >= max_window_layers slide
  const ModelConfig q2 = ModelConfig::from_json(j);
  EXPECT_EQ(kinds(q2, 9), "FSSS");
  EXPECT_TRUE(q2.qkv_bias() && !q2.o_bias());  // Qwen2: bias on q/k/v, not on o_proj
  j = base(), j["num_hidden_layers"] = 4, j["sliding_window"] = 5, j["sliding_window_pattern"] = 2;
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 5), "SFSF");
  j = base(), j["sliding_window"] = 3;
  j["layer_types"] = {"full_attention", "sliding_attention"}, j["attention_sinks"] = true;
  const ModelConfig c = ModelConfig::from_json(j);
  EXPECT_EQ(kinds(c, 3), "FS");
  EXPECT_TRUE(c.attention_sinks);
  const ModelConfig back = ModelConfig::from_json(c.to_json());  // the round trip keeps both
  EXPECT_EQ(kinds(back, 3), "FS");
  EXPECT_TRUE(back.attention_sinks);
}

namespace {
// The message of the llm0::Error that parsing `j` (as "cfg.json") throws ("" if none).
std::string config_error(const nlohmann::json& j) {
  try {
    ModelConfig::from_json(j, "cfg.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// A sliding_window wider than max_position_embeddings never limits a sliding layer: refused,
// naming both fields and values, where some layer slides; a window that applies to no layer
// (Qwen2's published configs: 131072 with use_sliding_window false) and W = P still load.
TEST(Config, WindowWiderThanThePositionsIsRefusedWhereItApplies) {
  nlohmann::json j = base();  // max_position_embeddings 128, 2 layers
  j["model_type"] = "mistral", j["sliding_window"] = 4096;  // Mistral: every layer slides
  EXPECT_EQ(config_error(j), "cfg.json: sliding_window=4096 is larger than "
            "max_position_embeddings=128, so it never limits the attention of the 2 sliding "
            "layer(s); give a window <= 128 or make them full_attention");
  j["sliding_window"] = 128;
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 128), "SS");
  j = base(), j["model_type"] = "qwen2", j["sliding_window"] = 131072;
  j["use_sliding_window"] = false, j["max_window_layers"] = 28;  // as Qwen2.5-7B-Instruct
  EXPECT_EQ(kinds(ModelConfig::from_json(j), 0), "FF");
  j["use_sliding_window"] = true, j["max_window_layers"] = 1;  // now layer 1 slides
  EXPECT_NE(config_error(j).find("sliding_window=131072 is larger than max_position_embeddings="
                                 "128, so it never limits the attention of the 1 sliding"),
            std::string::npos) << config_error(j);
  j = base(), j["sliding_window"] = 129, j["layer_types"] = {"sliding_attention", "full_attention"};
  EXPECT_NE(config_error(j).find("sliding_window=129"), std::string::npos) << config_error(j);
}

TEST(Config, WhatTheEngineCannotRunIsRefusedByName) {
  nlohmann::json j = base();
  j["layer_types"] = {"full_attention", "sliding_attention"};  // sliding layers need a window
  expect_error(j, "sliding_window");
  j = base(), j["layer_types"] = {"linear_attention", "full_attention"};  // sizes missing
  expect_error(j, "linear_num_key_heads");
  j = base(), j["layer_types"] = {"full_attention"};  // wrong length
  expect_error(j, "layer_types");
  j = base(), j["model_type"] = "gpt_oss";
  expect_error(j, "swiglu_limit");
  j = base(), j["model_type"] = "gemma2";
  expect_error(j, "model_type \"gemma2\"");
  j = base(), j["sliding_window"] = 0, j["model_type"] = "mistral";
  expect_error(j, "sliding_window");
  j = base(), j["attention_sinks"] = "yes";
  expect_error(j, "attention_sinks");
}

// The kind table (config/layer_kind.h) is the one list of names: every name it lists selects its
// kind and is written back by to_json; an unknown name is refused with the table's list; the
// kind set by model_type (MLA) is not a name layer_types can choose.
TEST(Config, LayerTypesNamesComeFromTheKindTable) {
  for (const LayerKindInfo& k : kLayerKinds) {
    SCOPED_TRACE(k.layer_type);
    EXPECT_EQ(layer_kind_info(k.kind).display, k.display);
    if (k.by_model_type) {
      EXPECT_NE(layer_kind_named(k.layer_type), k.kind);
      continue;
    }
    EXPECT_EQ(layer_kind_named(k.layer_type), k.kind);
    EXPECT_NE(layer_type_names().find(k.layer_type), std::string::npos);
  }
  EXPECT_EQ(layer_type_names(), "full_attention, sliding_attention, linear_attention, "
                                "shared_kv_attention (llm0 extension)");
  nlohmann::json j = base();
  j["layer_types"] = {"full_attention", "shared_kv_attention"};
  const ModelConfig c = ModelConfig::from_json(j);
  EXPECT_EQ(c.layer(1).kind, LayerKind::SharedKvAttention);
  EXPECT_EQ(c.to_json()["layer_types"], j["layer_types"]);
  EXPECT_FALSE(ModelConfig::from_json(base()).to_json().contains("layer_types"));  // all full
  j["layer_types"] = {"full_attention", "latent_attention"};
  expect_error(j, "layer_types[1] = \"latent_attention\" is not one of " + layer_type_names());
}

// deepseek_v2 / v3: MLA sizes read verbatim, dense configs run, YaRN rope_scaling refused.
TEST(Config, DeepSeekLatentAttentionConfigs) {
  nlohmann::json j = base();
  j["model_type"] = "deepseek_v2", j["kv_lora_rank"] = 16, j["qk_nope_head_dim"] = 12;
  j["qk_rope_head_dim"] = 8, j["v_head_dim"] = 10, j["q_lora_rank"] = nullptr;
  j["first_k_dense_replace"] = 2;  // dense (DeepseekV2Config's default 0 makes every layer MoE)
  const ModelConfig c = ModelConfig::from_json(j);
  EXPECT_EQ(c.mla.q_lora_rank, 0);
  EXPECT_EQ(c.mla.kv_lora_rank, 16);
  EXPECT_EQ(c.mla.qk_head_dim(), 20);
  EXPECT_EQ(c.rotary_dim(), 8);
  EXPECT_EQ(c.layer(1).kind, LayerKind::LatentAttention);
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  EXPECT_EQ(back.mla.v_head_dim, 10);
  EXPECT_EQ(back.layer(0).kind, LayerKind::LatentAttention);
  j["q_lora_rank"] = 24, j["model_type"] = "deepseek_v3";
  EXPECT_EQ(ModelConfig::from_json(j).mla.q_lora_rank, 24);
  j["n_routed_experts"] = 8, j["first_k_dense_replace"] = 2;  // both layers dense
  EXPECT_EQ(ModelConfig::from_json(j).layer(1).ffn, FfnKind::Mlp);
  j["model_type"] = "deepseek_v2", j["first_k_dense_replace"] = 1;  // layer 1 has experts, whose
  expect_error(j, "num_experts_per_tok");                          // K V2 leaves unset (None)
  j = base(), j["model_type"] = "deepseek_v2", j["kv_lora_rank"] = 16, j["first_k_dense_replace"] = 2;
  expect_error(j, "qk_nope_head_dim");
  // Every MLA size is checked by name (a negative or zero rank used to reach the allocator).
  const nlohmann::json ok = ModelConfig::from_json(
      nlohmann::json::parse(R"({"vocab_size": 100, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 4, "max_position_embeddings": 128,
        "rms_norm_eps": 1e-6, "rope_theta": 1e4, "model_type": "deepseek_v2", "kv_lora_rank": 16,
        "qk_nope_head_dim": 12, "qk_rope_head_dim": 8, "v_head_dim": 10,
        "first_k_dense_replace": 2})")).to_json();
  const std::pair<const char*, nlohmann::json> bad[] = {
      {"kv_lora_rank", -8}, {"kv_lora_rank", 0}, {"v_head_dim", -5}, {"qk_rope_head_dim", 3},
      {"q_lora_rank", -1}, {"n_routed_experts", -1}, {"moe_layer_freq", 0},
      {"rope_interleave", false}};
  for (const auto& [key, value] : bad) {
    j = ok, j[key] = value;
    expect_error(j, key);
  }
  j["qk_nope_head_dim"] = 12, j["qk_rope_head_dim"] = 8, j["v_head_dim"] = 10;
  j["rope_scaling"] = {{"type", "yarn"}, {"factor", 40}};
  expect_error(j, "rope_scaling");
  // MLA layers are full attention: a sliding or linear layer is refused by its own kind.
  j.erase("rope_scaling"), j.erase("rope_interleave");
  j["layer_types"] = {"full_attention", "linear_attention"};
  expect_error(j, "layer 1 is a linear attention layer (layer_types \"linear_attention\")");
  j["layer_types"] = {"sliding_attention", "full_attention"}, j["sliding_window"] = 4;
  expect_error(j, "layer 0 is a sliding-window attention layer (layer_types \"sliding_attention\")");
}

// Every public config in configs/reference/ is either run by the engine (it parses into a
// ModelConfig with the features it declares) or refused with a message naming what is missing;
// a new reference file must be classified here.
TEST(Config, EveryReferenceConfigIsRunOrRefusedByName) {
  const std::map<std::string, std::string> expected = {
      {"course-anchor-hybrid.json", "intermediate_size"},
      {"deepseek-llm-67b.json", ""},
      {"deepseek-v2.json", "rope_scaling"},
      {"deepseek-v3.json", "rope_scaling"},
      {"llama-3-8b.json", ""},
      {"mistral-7b-v0.1.json", ""},
      {"qwen3-30b-a3b.json", ""},
      {"qwen3-8b.json", ""},
      {"qwen3-next-80b-a3b.json", ""},
  };
  size_t seen = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(LLM0_SOURCE_DIR) + "/configs/reference")) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected.count(name)) << "classify the new reference config " << name;
    ++seen;
    const std::string& refusal = expected.at(name);
    try {
      const ModelConfig c = ModelConfig::from_file(entry.path().string());
      EXPECT_EQ(refusal, "") << "runs, but was expected to be refused";
      if (name == "mistral-7b-v0.1.json") {
        EXPECT_EQ(c.layer(0).sliding_window, 4096);
      }
      if (name == "qwen3-30b-a3b.json") {  // every layer MoE: 128 experts, top 8, renormalised
        EXPECT_EQ(c.layer(47).ffn, FfnKind::Moe);
        EXPECT_EQ(c.moe.num_experts, 128);
        EXPECT_TRUE(c.moe.norm_topk_prob);
      }
      if (name == "qwen3-next-80b-a3b.json") {  // 3 Gated DeltaNet : 1 gated attention, all MoE
        EXPECT_EQ(c.layer(0).kind, LayerKind::LinearAttention);
        EXPECT_EQ(c.layer(3).kind, LayerKind::FullAttention);
        EXPECT_EQ(c.layer(0).ffn, FfnKind::Moe);
        EXPECT_EQ(c.moe.num_experts, 512);
        EXPECT_TRUE(c.moe.shared_expert_gate && c.attn_output_gate && c.unit_offset_norms());
      }
    } catch (const Error& e) {
      EXPECT_NE(refusal, "") << "refused: " << e.what();
      EXPECT_NE(std::string(e.what()).find(refusal), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(seen, expected.size());
}

// Which layers are MoE, by family (HF rules, verbatim fields), and the router fields.
TEST(Config, MixtureOfExpertsLayersAndRouterFields) {
  nlohmann::json j = base();
  j["num_hidden_layers"] = 6, j["model_type"] = "qwen3_moe", j["num_experts"] = 8;
  j["num_experts_per_tok"] = 2, j["moe_intermediate_size"] = 24, j["decoder_sparse_step"] = 2;
  j["mlp_only_layers"] = {3};
  ModelConfig c = ModelConfig::from_json(j);
  // (i + 1) % 2 == 0 and i not in mlp_only_layers: layers 1 and 5 (3 is listed as dense).
  for (int il = 0; il < 6; ++il)
    EXPECT_EQ(c.layer(il).ffn, il == 1 || il == 5 ? FfnKind::Moe : FfnKind::Mlp) << il;
  EXPECT_TRUE(c.use_qk_norm);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 0);
  EXPECT_FALSE(c.moe.norm_topk_prob);  // HF Qwen3MoeConfig default
  ModelConfig back = ModelConfig::from_json(c.to_json());
  for (int il = 0; il < 6; ++il) EXPECT_EQ(back.layer(il).ffn, c.layer(il).ffn) << il;
  j["model_type"] = "qwen2_moe", j["shared_expert_intermediate_size"] = 40;
  c = ModelConfig::from_json(j);
  EXPECT_TRUE(c.moe.shared_expert_gate);
  EXPECT_TRUE(c.qkv_bias());
  EXPECT_FALSE(c.o_bias());
  // DeepSeek: i >= first_k_dense_replace and i % moe_layer_freq == 0; V3 defaults sigmoid/noaux_tc.
  j = base();
  j["num_hidden_layers"] = 6, j["model_type"] = "deepseek_v3", j["kv_lora_rank"] = 16;
  j["qk_nope_head_dim"] = 12, j["qk_rope_head_dim"] = 8, j["v_head_dim"] = 10;
  j["n_routed_experts"] = 8, j["num_experts_per_tok"] = 3, j["moe_intermediate_size"] = 20;
  j["n_shared_experts"] = 2, j["first_k_dense_replace"] = 1, j["moe_layer_freq"] = 2;
  j["n_group"] = 4, j["topk_group"] = 2, j["routed_scaling_factor"] = 2.5;
  c = ModelConfig::from_json(j);
  for (int il = 0; il < 6; ++il)
    EXPECT_EQ(c.layer(il).ffn, il == 2 || il == 4 ? FfnKind::Moe : FfnKind::Mlp) << il;
  EXPECT_EQ(c.moe.scoring, MoeScoring::Sigmoid);
  EXPECT_EQ(c.moe.topk_method, MoeTopk::NoauxTc);
  EXPECT_TRUE(c.moe.norm_topk_prob);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 40);  // 20 × n_shared_experts
  EXPECT_DOUBLE_EQ(c.moe.routed_scaling_factor, 2.5);
  back = ModelConfig::from_json(c.to_json());
  EXPECT_EQ(back.moe.n_group, 4);
  EXPECT_EQ(back.layer(4).ffn, FfnKind::Moe);
  EXPECT_EQ(back.layer(3).ffn, FfnKind::Mlp);
  j["model_type"] = "deepseek_v2";
  c = ModelConfig::from_json(j);
  EXPECT_EQ(c.moe.scoring, MoeScoring::Softmax);
  EXPECT_EQ(c.moe.topk_method, MoeTopk::Greedy);
  // Bad values, each named.
  const std::pair<const char*, nlohmann::json> bad[] = {
      {"num_experts_per_tok", 9}, {"topk_group", 5}, {"n_group", 3}, {"scoring_func", "relu"},
      {"topk_method", "random"}, {"moe_intermediate_size", 0}, {"moe_balance", "magic"},
      // past 32 bits: refused, not wrapped (2^32 + 2 once read as 2)
      {"num_experts_per_tok", 4294967298LL}, {"moe_intermediate_size", 4294967328LL},
      {"n_group", 4294967298LL}, {"topk_group", 4294967297LL}, {"routed_scaling_factor", -2}};
  for (const auto& [key, value] : bad) {
    nlohmann::json b = j;
    b["topk_method"] = "group_limited_greedy";  // greedy ignores the groups (as HF)
    b[key] = value;
    expect_error(b, key);
  }
  nlohmann::json wide = j;  // the shared width moe_intermediate_size × n_shared_experts overflows
  wide["moe_intermediate_size"] = 65536, wide["n_shared_experts"] = 65536;
  expect_error(wide, "n_shared_experts");
}

// DeepSeek-V3's correction-bias routing (topk_method noaux_tc) is defined on sigmoid scores only
// (its MoEGate raises NotImplementedError for another scoring_func): with softmax it is refused,
// naming both fields, also where softmax is deepseek_v2's default; each field alone still loads.
TEST(Config, NoauxTcWithSoftmaxScoringIsRefused) {
  nlohmann::json j = base();
  j["num_hidden_layers"] = 2, j["model_type"] = "deepseek_v3", j["kv_lora_rank"] = 16;
  j["qk_nope_head_dim"] = 12, j["qk_rope_head_dim"] = 8, j["v_head_dim"] = 10;
  j["n_routed_experts"] = 8, j["num_experts_per_tok"] = 2, j["moe_intermediate_size"] = 20;
  j["n_group"] = 4, j["topk_group"] = 2, j["first_k_dense_replace"] = 0;
  const std::string refusal = "cfg.json: topk_method \"noaux_tc\" needs scoring_func \"sigmoid\", "
      "got scoring_func \"softmax\" (DeepSeek-V3's correction-bias routing is defined on sigmoid "
      "scores)";
  j["scoring_func"] = "softmax", j["topk_method"] = "noaux_tc";
  EXPECT_EQ(config_error(j), refusal);
  j["scoring_func"] = "sigmoid";
  EXPECT_EQ(ModelConfig::from_json(j).moe.topk_method, MoeTopk::NoauxTc);
  j["scoring_func"] = "softmax", j["topk_method"] = "group_limited_greedy";
  EXPECT_EQ(ModelConfig::from_json(j).moe.scoring, MoeScoring::Softmax);
  j.erase("scoring_func"), j["model_type"] = "deepseek_v2", j["topk_method"] = "noaux_tc";
  EXPECT_EQ(config_error(j), refusal);  // deepseek_v2 scores by softmax unless told otherwise
}

// What a DeepSeek config omits takes transformers' DeepseekV3Config / DeepseekV2Config defaults
// (configuration_deepseek_v3.py: n_group 8, topk_group 4, routed_scaling_factor 2.5, top 8,
// first_k_dense_replace 3, one shared expert, renormalised, Fe 2048; configuration_deepseek_v2.py:
// × 1.0, two shared experts, no dense layer, not renormalised, Fe 1407, greedy, K and the groups
// None), and a config whose MoE layers would take HF's 256 / 64 experts must state n_routed_experts.
TEST(Config, DeepSeekMoeDefaultsAreTransformers) {
  nlohmann::json j = base();
  j["num_hidden_layers"] = 5, j["model_type"] = "deepseek_v3", j["kv_lora_rank"] = 16;
  j["qk_nope_head_dim"] = 12, j["qk_rope_head_dim"] = 8, j["v_head_dim"] = 10;
  expect_error(j, "n_routed_experts");  // layers 3, 4 would have HF's 256 experts
  j["n_routed_experts"] = 32;
  ModelConfig c = ModelConfig::from_json(j);
  for (int il = 0; il < 5; ++il) EXPECT_EQ(c.layer(il).ffn, il >= 3 ? FfnKind::Moe : FfnKind::Mlp) << il;
  EXPECT_EQ(c.moe.n_group, 8);
  EXPECT_EQ(c.moe.topk_group, 4);
  EXPECT_DOUBLE_EQ(c.moe.routed_scaling_factor, 2.5);
  EXPECT_EQ(c.moe.num_experts_per_tok, 8);
  EXPECT_EQ(c.moe.moe_intermediate_size, 2048);
  EXPECT_EQ(c.moe.n_shared_experts, 1);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 2048);
  EXPECT_TRUE(c.moe.norm_topk_prob);
  EXPECT_EQ(c.moe.scoring, MoeScoring::Sigmoid);
  EXPECT_EQ(c.moe.topk_method, MoeTopk::NoauxTc);
  EXPECT_EQ(c.moe.first_k_dense_replace, 3);
  const ModelConfig back = ModelConfig::from_json(c.to_json());  // the defaults are written out
  EXPECT_EQ(back.moe.n_group, 8);
  EXPECT_EQ(back.layer(3).ffn, FfnKind::Moe);
  EXPECT_EQ(back.layer(2).ffn, FfnKind::Mlp);
  nlohmann::json dense = j;  // 0 experts: dense, nothing else needed
  dense["n_routed_experts"] = 0;
  EXPECT_EQ(ModelConfig::from_json(dense).layer(4).ffn, FfnKind::Mlp);
  // deepseek_v2: its own defaults; K is None in HF, so it must be stated.
  j["model_type"] = "deepseek_v2";
  expect_error(j, "num_experts_per_tok");
  j["num_experts_per_tok"] = 4;
  c = ModelConfig::from_json(j);
  for (int il = 0; il < 5; ++il) EXPECT_EQ(c.layer(il).ffn, FfnKind::Moe) << il;
  EXPECT_DOUBLE_EQ(c.moe.routed_scaling_factor, 1.0);
  EXPECT_EQ(c.moe.moe_intermediate_size, 1407);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 2 * 1407);
  EXPECT_FALSE(c.moe.norm_topk_prob);
  EXPECT_EQ(c.moe.scoring, MoeScoring::Softmax);
  EXPECT_EQ(c.moe.topk_method, MoeTopk::Greedy);
  j["topk_method"] = "group_limited_greedy";  // its groups are None in HF: stated or refused
  expect_error(j, "n_group");
  j["n_group"] = 4;
  expect_error(j, "topk_group");
  j["topk_group"] = 2;
  EXPECT_EQ(ModelConfig::from_json(j).moe.topk_group, 2);
  j.erase("n_routed_experts");
  expect_error(j, "n_routed_experts");
}
