// GGUF export of mixture-of-experts layers. See export_moe.h.
#include "io/gguf/export_moe.h"

#include "core/check.h"

namespace llm0 {

void check_gguf_moe(const ModelConfig& c, const std::string& arch) {
  const bool qwen = arch != "deepseek2";  // qwen3moe, qwen3next: experts on every layer
  LLM0_CHECK(!qwen || c.moe.enabled(), "GGUF export: this {} model has no mixture-of-experts "
             "layer (num_experts 0, or every layer in mlp_only_layers), which llama.cpp's {} "
             "cannot load{}", c.model_type, arch, arch == "qwen3moe" ? ": it is a dense Qwen3 "
             "model (model_type qwen3)" : " (every layer needs experts and the gated shared expert)");
  if (!c.moe.enabled()) return;
  const MoeConfig& m = c.moe;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const bool want = qwen || il >= m.first_k_dense_replace;
    LLM0_CHECK(c.layer(il).has_experts() == want, "GGUF export: layer {} is {}: "
               "llama.cpp's {} has experts on {}", il, want ? "dense" : "MoE", arch,
               qwen ? "every layer (no mlp_only_layers, decoder_sparse_step 1)"
                    : "every layer from first_k_dense_replace on (moe_layer_freq 1)");
  }
  LLM0_CHECK(!qwen || m.norm_topk_prob, "GGUF export: norm_topk_prob false cannot be "
             "represented: llama.cpp's {} always renormalises the top-k weights", arch);
  LLM0_CHECK(m.topk_method != MoeTopk::GroupLimitedGreedy || m.n_group == 1, "GGUF export: "
             "group_limited_greedy cannot be represented: llama.cpp ranks a group by the sum of "
             "its two best scores (the noaux_tc rule), DeepSeek-V2 by its best");
  if (arch == "qwen3next")
    LLM0_CHECK(m.shared_expert_gate, "GGUF export: llama.cpp's qwen3next needs the gated shared "
               "expert on every layer (shared_expert_intermediate_size > 0)");
  else
    LLM0_CHECK(!m.shared_expert_gate, "GGUF export: a gated shared expert ({}) is not exported "
               "to llama.cpp's {} (only qwen3next has one)", c.model_type, arch);
}

void add_gguf_moe_metadata(GgufWriter& g, const ModelConfig& c, const std::string& arch) {
  if (!c.moe.enabled()) return;
  const MoeConfig& m = c.moe;
  const auto u32 = [](int v) { return GgufValue::of_u32((uint32_t)v); };
  const std::string a = arch + ".";
  g.add(a + "expert_count", u32(m.num_experts));
  g.add(a + "expert_used_count", u32(m.num_experts_per_tok));
  g.add(a + "expert_feed_forward_length", u32(m.moe_intermediate_size));
  if (arch == "qwen3next")
    g.add(a + "expert_shared_feed_forward_length", u32(m.shared_expert_intermediate_size));
  if (arch != "deepseek2") return;
  g.add(a + "leading_dense_block_count", u32(m.first_k_dense_replace));
  g.add(a + "expert_shared_count", u32(m.n_shared_experts));
  g.add(a + "expert_weights_scale", GgufValue::of_f32((float)m.routed_scaling_factor));
  g.add(a + "expert_weights_norm", GgufValue::of_bool(m.norm_topk_prob));
  g.add(a + "expert_gating_func", u32(m.scoring == MoeScoring::Softmax ? 1 : 2));  // llama.cpp's enum
  g.add(a + "expert_group_count", u32(m.grouped() ? m.n_group : 1));
  g.add(a + "expert_group_used_count", u32(m.grouped() ? m.topk_group : 1));
}

namespace {

// "model.layers.{il}.mlp.<rest>" -> il and rest ("" when p is not an MLP parameter).
std::string mlp_rest(const std::string& name, std::string& il) {
  const std::string pre = "model.layers.";
  if (name.rfind(pre, 0) != 0) return "";
  const size_t dot = name.find('.', pre.size());
  il = name.substr(pre.size(), dot - pre.size());
  const std::string rest = name.substr(dot + 1);
  return rest.rfind("mlp.", 0) == 0 ? rest.substr(4) : "";
}

}  // namespace

bool add_gguf_moe_tensor(GgufWriter& g, const Model& model, const ParamInfo& p, GgmlType dtype) {
  const ModelConfig& c = model.config();
  std::string il;
  const std::string rest = mlp_rest(p.name, il);
  if (rest.empty() || !c.moe.enabled() || !c.layer(std::stoi(il)).has_experts()) return false;
  const std::string blk = "blk." + il + ".";
  const float* w = model.params().value(p.name);
  if (rest == "gate.weight") {
    g.add_tensor(blk + "ffn_gate_inp.weight", p.shape.dims, GgmlType::F32, w);  // as convert_hf_to_gguf
  } else if (rest == "gate.e_score_correction_bias") {
    g.add_tensor(blk + "exp_probs_b.bias", p.shape.dims, GgmlType::F32, w);
  } else if (rest == "shared_expert_gate.weight") {  // Qwen's gate [1, C], float32 as converted
    g.add_tensor(blk + "ffn_gate_inp_shexp.weight", p.shape.dims, GgmlType::F32, w);
  } else if (rest.rfind("shared_expert", 0) == 0) {  // Qwen's shared_expert., DeepSeek's shared_experts.
    const std::string tail = rest.substr(rest.find('.') + 1);  // "gate_proj.weight", ...
    const std::string proj = tail.substr(0, tail.find('_'));
    g.add_tensor(blk + "ffn_" + proj + "_shexp.weight", p.shape.dims, dtype, w);
  } else if (rest == "experts.0.gate_proj.weight") {  // the three stacks, once per layer
    const int E = c.moe.num_experts, Fe = c.moe.moe_intermediate_size, C = c.hidden_size;
    const std::string pre = "model.layers." + il + ".mlp.experts.";
    for (const char* proj : {"gate", "up", "down"}) {
      std::vector<float> stack((size_t)E * Fe * C);
      for (int e = 0; e < E; ++e)
        std::copy_n(model.params().value(pre + std::to_string(e) + "." + proj + "_proj.weight"),
                    (size_t)Fe * C, stack.begin() + (ptrdiff_t)e * Fe * C);
      const std::vector<int64_t> shape = proj[0] == 'd' ? std::vector<int64_t>{E, C, Fe}
                                                        : std::vector<int64_t>{E, Fe, C};
      g.add_tensor(blk + "ffn_" + proj + "_exps.weight", shape, dtype, stack.data());
    }
  }
  return true;  // every other expert tensor is inside the stacks
}

}  // namespace llm0
