// config.json <-> MoeConfig. See moe_config.h. Defaults follow the HF config classes
// (Qwen2MoeConfig, Qwen3MoeConfig, DeepseekV2Config, DeepseekV3Config: deepseek_moe_defaults) and
// DeepSeek's published configs: deepseek_v3 scores by sigmoid and chooses by noaux_tc unless the
// config says otherwise.
#include "config/moe_config.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/json_parse.h"

namespace llm0 {

bool is_deepseek_type(const std::string& t) { return t == "deepseek_v2" || t == "deepseek_v3"; }

const DeepseekMoeDefaults& deepseek_moe_defaults(bool v3) {
  // DeepseekV3Config: 256 experts, 1 shared, × 2.5, 8 groups keeping 4, top 8, layers 0-2 dense,
  // renormalised, Fe 2048. DeepseekV2Config: 64 experts, 2 shared, × 1.0, groups and K None,
  // no dense layer, not renormalised, Fe 1407, greedy.
  static const DeepseekMoeDefaults kV3{256, 1, 8, 2048, 8, 4, 3, 2.5, true, "noaux_tc", "sigmoid"};
  static const DeepseekMoeDefaults kV2{64, 2, 0, 1407, 0, 0, 0, 1.0, false, "greedy", "softmax"};
  return v3 ? kV3 : kV2;
}

namespace {

double number_or(const nlohmann::json& j, const char* key, double fallback, const std::string& src) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  LLM0_CHECK(j[key].is_number(), "{}: field \"{}\" must be a number, got {}", src, key, json_excerpt(j[key]));
  return j[key].get<double>();
}

int int_or(const ConfigFields& f, const char* key, int fallback) {
  const int64_t v = f.non_negative_or(key, fallback);
  LLM0_CHECK(v <= 2147483647LL, "{}: field \"{}\"={} is out of range", f.source, key, v);
  return (int)v;
}

// A positive count that fits an int (n_group, topk_group, num_experts_per_tok, ...).
int positive_int(const ConfigFields& f, const char* key, int64_t fallback, bool required) {
  const int64_t v = required ? f.positive(key) : f.positive_or(key, fallback);
  LLM0_CHECK(v <= 2147483647LL, "{}: field \"{}\"={} is out of range", f.source, key, v);
  return (int)v;
}

std::string text_or(const ConfigFields& f, const char* key, const char* fallback) {
  const std::string s = f.text_or_empty(key);
  return s.empty() ? fallback : s;
}

MoeScoring parse_scoring(const std::string& s, const std::string& src) {
  if (s == "softmax") return MoeScoring::Softmax;
  LLM0_CHECK(s == "sigmoid", "{}: scoring_func=\"{}\" is not softmax or sigmoid", src, s);
  return MoeScoring::Sigmoid;
}

MoeTopk parse_topk(const std::string& s, const std::string& src) {
  if (s == "greedy") return MoeTopk::Greedy;
  if (s == "group_limited_greedy") return MoeTopk::GroupLimitedGreedy;
  LLM0_CHECK(s == "noaux_tc", "{}: topk_method=\"{}\" is not greedy, group_limited_greedy or "
             "noaux_tc", src, s);
  return MoeTopk::NoauxTc;
}

void read_deepseek(const ConfigFields& f, const std::string& t, MoeConfig& m) {
  const DeepseekMoeDefaults& d = deepseek_moe_defaults(t == "deepseek_v3");
  const std::string src(f.source);
  m.num_experts = int_or(f, "n_routed_experts", 0);  // stated whenever a layer has experts
  m.n_shared_experts = int_or(f, "n_shared_experts", d.n_shared_experts);
  m.routed_scaling_factor = number_or(f.config, "routed_scaling_factor", d.routed_scaling_factor, src);
  m.topk_method = parse_topk(text_or(f, "topk_method", d.topk_method), src);
  m.scoring = parse_scoring(text_or(f, "scoring_func", d.scoring_func), src);
  // Groups matter only to the grouped methods; DeepseekV2Config's None there must be stated.
  const bool need_groups = m.topk_method != MoeTopk::Greedy && d.n_group == 0;
  m.n_group = positive_int(f, "n_group", std::max(d.n_group, 1), need_groups);
  m.topk_group = positive_int(f, "topk_group", std::max(d.topk_group, 1), need_groups);
  m.norm_topk_prob = f.flag_or("norm_topk_prob", d.norm_topk_prob);
  m.first_k_dense_replace = int_or(f, "first_k_dense_replace", d.first_k_dense_replace);
  m.moe_layer_freq = positive_int(f, "moe_layer_freq", 1, false);
  m.router_aux_loss_coef = number_or(f.config, "aux_loss_alpha", 0.0, src);
  if (m.num_experts == 0) return;
  m.num_experts_per_tok = positive_int(f, "num_experts_per_tok", d.num_experts_per_tok,
                                       d.num_experts_per_tok == 0);
  m.moe_intermediate_size = positive_int(f, "moe_intermediate_size", d.moe_intermediate_size, false);
}

void read_qwen(const ConfigFields& f, const std::string& t, MoeConfig& m) {
  m.num_experts = int_or(f, "num_experts", 0);
  // HF defaults: Qwen2MoeConfig / Qwen3MoeConfig False, Qwen3NextConfig True.
  m.norm_topk_prob = f.flag_or("norm_topk_prob", t == "qwen3_next");
  m.decoder_sparse_step = positive_int(f, "decoder_sparse_step", 1, false);
  m.router_aux_loss_coef = number_or(f.config, "router_aux_loss_coef", 0.0, std::string(f.source));
  if (t != "qwen3_moe") {  // qwen2_moe, qwen3_next: a gated shared expert
    m.shared_expert_intermediate_size = int_or(f, "shared_expert_intermediate_size", 0);
    m.shared_expert_gate = m.shared_expert_intermediate_size > 0;
  }
  if (f.has("mlp_only_layers")) {
    const nlohmann::json& v = f.config.at("mlp_only_layers");
    LLM0_CHECK(v.is_array(), "{}: field \"mlp_only_layers\" must be an array of layer indices",
               f.source);
    for (const nlohmann::json& i : v) {
      LLM0_CHECK(i.is_number_integer() && i.get<int64_t>() >= 0 && i.get<int64_t>() < 1 << 30,
                 "{}: mlp_only_layers entry {} is not a layer index", f.source, json_excerpt(i));
      m.mlp_only_layers.push_back(i.get<int>());
    }
  }
}

}  // namespace

MoeBalance parse_moe_balance(const std::string& s, const std::string& src) {
  if (s == "none") return MoeBalance::None;
  if (s == "aux_loss") return MoeBalance::AuxLoss;
  LLM0_CHECK(s == "bias_update", "{}: moe_balance=\"{}\" is not none, aux_loss or bias_update",
             src, s);
  return MoeBalance::BiasUpdate;
}

MoeConfig MoeConfig::from_json(const nlohmann::json& j, const std::string& t, const std::string& src) {
  const ConfigFields f{j, src};
  MoeConfig m;
  if (is_deepseek_type(t)) read_deepseek(f, t, m);
  else if (t == "qwen2_moe" || t == "qwen3_moe" || t == "qwen3_next") read_qwen(f, t, m);
  if (!m.enabled()) return m;
  if (!is_deepseek_type(t)) {
    m.num_experts_per_tok = positive_int(f, "num_experts_per_tok", 0, true);
    m.moe_intermediate_size = positive_int(f, "moe_intermediate_size", 0, true);
  } else {
    const int64_t Fs = (int64_t)m.moe_intermediate_size * m.n_shared_experts;
    LLM0_CHECK(Fs <= 2147483647LL, "{}: moe_intermediate_size {} × n_shared_experts {} = {} is out "
               "of range", src, m.moe_intermediate_size, m.n_shared_experts, Fs);
    m.shared_expert_intermediate_size = (int)Fs;
  }
  const std::string balance = f.text_or_empty("moe_balance");
  m.balance = !balance.empty() ? parse_moe_balance(balance, src)
              : m.router_aux_loss_coef > 0 ? MoeBalance::AuxLoss : MoeBalance::None;
  m.validate(src);
  return m;
}

void MoeConfig::validate(const std::string& src) const {
  if (!enabled()) return;
  const int E = num_experts, K = num_experts_per_tok;
  LLM0_CHECK(K > 0 && K <= E, "{}: num_experts_per_tok={} must be in [1, {}] (the number of "
             "experts)", src, K, E);
  LLM0_CHECK(moe_intermediate_size > 0, "{}: moe_intermediate_size={} must be > 0", src,
             moe_intermediate_size);
  LLM0_CHECK(shared_expert_intermediate_size >= 0, "{}: shared_expert_intermediate_size={} must "
             "be >= 0", src, shared_expert_intermediate_size);
  LLM0_CHECK(std::isfinite(routed_scaling_factor) && routed_scaling_factor > 0,
             "{}: routed_scaling_factor={} must be > 0", src, routed_scaling_factor);
  LLM0_CHECK(std::isfinite(router_aux_loss_coef) && router_aux_loss_coef >= 0,
             "{}: router_aux_loss_coef={} must be >= 0", src, router_aux_loss_coef);
  if (topk_method != MoeTopk::Greedy) {
    LLM0_CHECK(n_group > 0 && E % n_group == 0, "{}: n_routed_experts={} is not divisible by "
               "n_group={}", src, E, n_group);
    LLM0_CHECK(topk_group > 0 && topk_group <= n_group, "{}: topk_group={} must be in [1, "
               "n_group={}]", src, topk_group, n_group);
    LLM0_CHECK(K <= topk_group * (E / n_group), "{}: num_experts_per_tok={} exceeds the {} "
               "experts of the topk_group={} groups kept", src, K, topk_group * (E / n_group),
               topk_group);
    LLM0_CHECK(topk_method != MoeTopk::NoauxTc || n_group == 1 || E / n_group >= 2,
               "{}: noaux_tc ranks a group by its two best experts: n_group={} leaves {} per group",
               src, n_group, E / n_group);
  }
  // DeepSeek-V3's MoEGate (modeling_deepseek.py) raises NotImplementedError for any scoring_func
  // but sigmoid, and transformers' DeepseekV3 router is always sigmoid: a softmax router with a
  // correction bias has no reference to match.
  LLM0_CHECK(!(has_correction_bias() && scoring == MoeScoring::Softmax), "{}: topk_method "
             "\"noaux_tc\" needs scoring_func \"sigmoid\", got scoring_func \"softmax\" "
             "(DeepSeek-V3's correction-bias routing is defined on sigmoid scores)", src);
  LLM0_CHECK(balance != MoeBalance::BiasUpdate || has_correction_bias(), "{}: moe_balance "
             "\"bias_update\" needs topk_method \"noaux_tc\" (it updates e_score_correction_bias)",
             src);
}

void MoeConfig::to_json(nlohmann::json& j, const std::string& t) const {
  if (!enabled()) return;
  j["num_experts_per_tok"] = num_experts_per_tok;
  j["moe_intermediate_size"] = moe_intermediate_size;
  j["norm_topk_prob"] = norm_topk_prob;
  j["moe_balance"] = balance == MoeBalance::None ? "none"
                     : balance == MoeBalance::AuxLoss ? "aux_loss" : "bias_update";
  if (is_deepseek_type(t)) {
    j["n_routed_experts"] = num_experts, j["n_shared_experts"] = n_shared_experts;
    j["routed_scaling_factor"] = routed_scaling_factor;
    j["topk_method"] = topk_method == MoeTopk::Greedy ? "greedy"
                       : topk_method == MoeTopk::NoauxTc ? "noaux_tc" : "group_limited_greedy";
    j["scoring_func"] = scoring == MoeScoring::Softmax ? "softmax" : "sigmoid";
    j["n_group"] = n_group, j["topk_group"] = topk_group;
    j["first_k_dense_replace"] = first_k_dense_replace, j["moe_layer_freq"] = moe_layer_freq;
    j["aux_loss_alpha"] = router_aux_loss_coef;
  } else {
    j["num_experts"] = num_experts, j["decoder_sparse_step"] = decoder_sparse_step;
    j["mlp_only_layers"] = mlp_only_layers, j["router_aux_loss_coef"] = router_aux_loss_coef;
    if (shared_expert_intermediate_size > 0)
      j["shared_expert_intermediate_size"] = shared_expert_intermediate_size;
  }
}

std::vector<bool> resolve_moe_layers(const ConfigFields& f, int64_t L) {
  std::vector<bool> moe(static_cast<size_t>(L), false);
  const std::string t = f.text_or_empty("model_type");
  if (t == "deepseek_v2" || t == "deepseek_v3") {
    const DeepseekMoeDefaults& d = deepseek_moe_defaults(t == "deepseek_v3");
    const int64_t first = f.non_negative_or("first_k_dense_replace", d.first_k_dense_replace);
    const int64_t freq = f.positive_or("moe_layer_freq", 1);
    LLM0_CHECK(first >= L || f.has("n_routed_experts"), "{}: {} config without \"n_routed_experts\" "
               "(Hugging Face's default is {} experts on every layer from first_k_dense_replace={} "
               "on): state it (0 for dense MLP layers)", f.source, t, d.hf_n_routed_experts, first);
    if (f.non_negative_or("n_routed_experts", 0) > 0)
      for (int64_t il = first; il < L; ++il) moe[static_cast<size_t>(il)] = il % freq == 0;
    return moe;
  }
  if (t != "qwen2_moe" && t != "qwen3_moe" && t != "qwen3_next") return moe;
  if (f.non_negative_or("num_experts", 0) == 0) return moe;
  const int64_t step = f.positive_or("decoder_sparse_step", 1);
  for (int64_t il = 0; il < L; ++il) moe[static_cast<size_t>(il)] = (il + 1) % step == 0;
  if (f.has("mlp_only_layers")) {
    const nlohmann::json& v = f.config.at("mlp_only_layers");
    LLM0_CHECK(v.is_array(), "{}: field \"mlp_only_layers\" must be an array of layer indices",
               f.source);
    for (const nlohmann::json& i : v)
      if (i.is_number_integer() && i.get<int64_t>() >= 0 && i.get<int64_t>() < L)
        moe[static_cast<size_t>(i.get<int64_t>())] = false;
  }
  return moe;
}

}  // namespace llm0
