// GGUF export of a qwen3_next hybrid with experts for llama.cpp's qwen3next (src/io/
// gguf_export_qwen3next): the metadata llama.cpp reads, in_proj_qkvz split the way Hugging Face's
// fix_query_key_value_ordering splits it (checked through products with a random input, every key
// head), A_log -> −exp(A_log), (1 + w) baked into every norm but the gated one, the gated shared
// expert, and the configs llama.cpp would run differently refused by name. Greedy parity with
// llama.cpp itself: tests/peer/test_llamacpp_parity.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "gguf_fixtures.h"
#include "io/gguf/export.h"
#include "io/gguf/reader.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

// hybrid_config's sizes (hidden 28, nk 2, nv 4, K 4) with dk = dv = 6 (llama.cpp's state is
// dk × dk), layers linear, linear, full, linear (full_attention_interval 3), experts on every
// layer: E 5, K 2, Fe 10, gated shared expert Fs 12, renormalised.
ModelConfig qwen3next_moe_config() {
  ModelConfig c = hybrid_config({1, 1, 0, 1}, true);
  c.vocab_size = 300, c.rms_norm_eps = 1e-6;
  c.linear.linear_value_head_dim = 6;
  MoeConfig& m = c.moe;
  m.num_experts = 5, m.num_experts_per_tok = 2, m.moe_intermediate_size = 10;
  m.shared_expert_intermediate_size = 12, m.shared_expert_gate = true, m.norm_topk_prob = true;
  for (LayerConfig& l : c.layers) l.ffn = FfnKind::Moe;
  c.validate();
  return c;
}

// y = W x for W [rows, cols] row-major.
std::vector<double> matvec(const std::vector<float>& w, const std::vector<double>& x) {
  const size_t cols = x.size(), rows = w.size() / cols;
  std::vector<double> y(rows, 0.0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < cols; ++k) y[r] += (double)w[r * cols + k] * x[k];
  return y;
}

std::vector<float> values(const Model& m, const std::string& name) {
  const float* w = m.params().value(name);
  return std::vector<float>(w, w + m.params().info(name).numel);
}

}  // namespace

TEST(GgufExportQwen3Next, HybridWithExpertsInLlamaCppLayout) {
  const ModelConfig cfg = qwen3next_moe_config();
  const std::string dir = make_checkpoint(cfg, "qwen3next", true);
  const std::string out = test::fresh_temp_path("gguf", "qwen3next.gguf");
  EXPECT_EQ(export_gguf(dir, out).architecture, "qwen3next");
  const GgufFile f = read_gguf(out);
  const std::unique_ptr<Model> m = load_model(dir);
  const GatedDeltaNetConfig& d = cfg.linear;
  const int nk = 2, nv = 4, dk = 6, r = nv / nk, C = cfg.hidden_size;
  const std::string a = "qwen3next.";
  EXPECT_EQ(f.at("general.architecture").s, "qwen3next");
  EXPECT_EQ(f.at(a + "full_attention_interval").u, 3u);
  EXPECT_EQ(f.at(a + "ssm.conv_kernel").u, 4u);
  EXPECT_EQ(f.at(a + "ssm.state_size").u, (uint64_t)dk);
  EXPECT_EQ(f.at(a + "ssm.group_count").u, (uint64_t)nk);
  EXPECT_EQ(f.at(a + "ssm.time_step_rank").u, (uint64_t)nv);
  EXPECT_EQ(f.at(a + "ssm.inner_size").u, (uint64_t)(nv * dk));
  EXPECT_EQ(f.at(a + "rope.dimension_count").u, 6u);  // 24 × 0.25
  EXPECT_EQ(f.at(a + "attention.key_length").u, 24u);
  EXPECT_EQ(f.at(a + "expert_count").u, 5u);
  EXPECT_EQ(f.at(a + "expert_used_count").u, 2u);
  EXPECT_EQ(f.at(a + "expert_feed_forward_length").u, 10u);
  EXPECT_EQ(f.at(a + "expert_shared_feed_forward_length").u, 12u);

  // in_proj_qkvz · x, split as HF's fix_query_key_value_ordering does (view [nk, 2dk + 2r·dv],
  // split q | k | v | z, flatten each over the key heads), equals attn_qkv · x ‖ attn_gate · x.
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> x((size_t)C);
  for (double& v : x) v = n(rng);
  for (int il : {0, 1, 3}) {
    const std::string pre = "model.layers." + std::to_string(il) + ".linear_attn.";
    const std::string blk = "blk." + std::to_string(il) + ".";
    const std::vector<double> mixed = matvec(values(*m, pre + "in_proj_qkvz.weight"), x);
    const size_t group = mixed.size() / nk, rv = (size_t)r * dk;
    std::vector<double> q, k, v, z;
    for (int h = 0; h < nk; ++h) {
      const auto at = mixed.begin() + (ptrdiff_t)(h * group);
      q.insert(q.end(), at, at + dk);
      k.insert(k.end(), at + dk, at + 2 * dk);
      v.insert(v.end(), at + 2 * dk, at + 2 * dk + (ptrdiff_t)rv);
      z.insert(z.end(), at + 2 * dk + (ptrdiff_t)rv, at + 2 * dk + 2 * (ptrdiff_t)rv);
    }
    std::vector<double> want = q;
    want.insert(want.end(), k.begin(), k.end());
    want.insert(want.end(), v.begin(), v.end());
    ASSERT_NE(f.tensor(blk + "attn_qkv.weight"), nullptr);
    EXPECT_EQ(f.tensor(blk + "attn_qkv.weight")->shape(),
              (std::vector<int64_t>{d.conv_channels(), C}));
    const std::vector<double> qkv = matvec(f.tensor(blk + "attn_qkv.weight")->to_float(), x);
    const std::vector<double> gate = matvec(f.tensor(blk + "attn_gate.weight")->to_float(), x);
    ASSERT_EQ(qkv.size(), want.size());
    ASSERT_EQ(gate.size(), z.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(qkv[i], want[i], 1e-9) << il << " " << i;
    for (size_t i = 0; i < z.size(); ++i) EXPECT_NEAR(gate[i], z[i], 1e-9) << il << " z " << i;
    EXPECT_EQ(f.tensor(blk + "ssm_in.weight"), nullptr);
    EXPECT_EQ(f.tensor(blk + "ssm_ba.weight")->to_float(), values(*m, pre + "in_proj_ba.weight"));
    const GgufTensorInfo* conv = f.tensor(blk + "ssm_conv1d.weight");
    EXPECT_EQ(conv->shape(), (std::vector<int64_t>{d.conv_channels(), 4}));
    EXPECT_EQ(conv->type, GgmlType::F32);
    EXPECT_EQ(conv->to_float(), values(*m, pre + "conv1d.weight"));
    EXPECT_EQ(f.tensor(blk + "ssm_dt.bias")->to_float(), values(*m, pre + "dt_bias"));
    const std::vector<float> A_log = values(*m, pre + "A_log"), ssm_a = f.tensor(blk + "ssm_a")->to_float();
    for (int j = 0; j < nv; ++j) EXPECT_FLOAT_EQ(ssm_a[(size_t)j], -std::exp(A_log[(size_t)j]));
    EXPECT_EQ(f.tensor(blk + "ssm_norm.weight")->to_float(), values(*m, pre + "norm.weight"));  // plain w
    EXPECT_EQ(f.tensor(blk + "ssm_out.weight")->to_float(), values(*m, pre + "out_proj.weight"));
  }
  // Gated attention: q_proj as stored (llama.cpp splits [query | gate] per head too).
  EXPECT_EQ(f.tensor("blk.2.attn_q.weight")->to_float(), values(*m, "model.layers.2.self_attn.q_proj.weight"));
  // (1 + w) norms, by name; the gated norm above stays plain.
  const std::vector<std::pair<std::string, std::string>> norms = {
      {"model.norm.weight", "output_norm.weight"},
      {"model.layers.1.input_layernorm.weight", "blk.1.attn_norm.weight"},
      {"model.layers.3.post_attention_layernorm.weight", "blk.3.post_attention_norm.weight"},
      {"model.layers.2.self_attn.q_norm.weight", "blk.2.attn_q_norm.weight"},
      {"model.layers.2.self_attn.k_norm.weight", "blk.2.attn_k_norm.weight"}};
  for (const auto& [hf, gg] : norms) {
    const std::vector<float> w = values(*m, hf), got = f.tensor(gg)->to_float();
    ASSERT_EQ(got.size(), w.size()) << hf;
    for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(got[i], 1.0f + w[i]) << hf;
  }
  EXPECT_EQ(f.tensor("blk.3.ffn_norm.weight"), nullptr);
  // The gated shared expert.
  EXPECT_EQ(f.tensor("blk.0.ffn_gate_inp_shexp.weight")->to_float(),
            values(*m, "model.layers.0.mlp.shared_expert_gate.weight"));
  EXPECT_EQ(f.tensor("blk.0.ffn_down_shexp.weight")->to_float(),
            values(*m, "model.layers.0.mlp.shared_expert.down_proj.weight"));
  EXPECT_EQ(f.tensor("blk.2.ffn_up_exps.weight")->shape(), (std::vector<int64_t>{5, 10, C}));
  // BF16: the matrices rounded, what llama.cpp's converter keeps in float32 kept so (the conv
  // kernel for ggml_ssm_conv, the shared-expert gate, ssm_a / ssm_dt / norms as 1-D tensors).
  const std::string out16 = test::fresh_temp_path("gguf", "qwen3next_bf16.gguf");
  export_gguf(dir, out16, GgmlType::BF16);
  const GgufFile h = read_gguf(out16);
  for (const char* n : {"blk.0.attn_qkv.weight", "blk.0.attn_gate.weight", "blk.0.ssm_ba.weight",
                        "blk.0.ssm_out.weight", "blk.2.attn_q.weight", "blk.2.ffn_gate_exps.weight"})
    EXPECT_EQ(h.tensor(n)->type, GgmlType::BF16) << n;
  for (const char* n : {"blk.0.ssm_conv1d.weight", "blk.0.ssm_a", "blk.0.ssm_dt.bias",
                        "blk.0.ssm_norm.weight", "blk.0.ffn_gate_inp_shexp.weight",
                        "blk.0.ffn_gate_inp.weight", "blk.2.attn_q_norm.weight"})
    EXPECT_EQ(h.tensor(n)->type, GgmlType::F32) << n;
}

TEST(GgufExportQwen3Next, RefusesWhatLlamaCppRunsDifferently) {
  struct Case { std::string needle; std::function<void(ModelConfig&)> edit; };
  const std::vector<Case> cases = {
      {"linear_value_head_dim 5 != linear_key_head_dim 6",
       [](ModelConfig& c) { c.linear.linear_value_head_dim = 5; }},
      {"layer 1 is dense", [](ModelConfig& c) { c.layers[1].ffn = FfnKind::Mlp, c.moe.mlp_only_layers = {1}; }},
      {"norm_topk_prob", [](ModelConfig& c) { c.moe.norm_topk_prob = false; }},
      {"gated shared expert", [](ModelConfig& c) {
         c.moe.shared_expert_intermediate_size = 0, c.moe.shared_expert_gate = false; }},
      {"full_attention_interval", [](ModelConfig& c) {
         c.layers[0].kind = LayerKind::FullAttention; }},  // full, linear, full, linear
  };
  for (const Case& k : cases) {
    ModelConfig c = qwen3next_moe_config();
    k.edit(c);
    c.validate();
    const std::string dir = test::fresh_temp_path("gguf", "q3n_refuse");
    const std::string out = test::fresh_temp_path("gguf", "q3n_refuse.gguf");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/config.json") << c.to_json().dump();  // refused before weights load
    const std::string msg = error_of([&] { export_gguf(dir, out); });
    EXPECT_NE(msg.find(k.needle), std::string::npos) << k.needle << ": " << msg;
    EXPECT_FALSE(std::filesystem::exists(out)) << k.needle;
  }
}
