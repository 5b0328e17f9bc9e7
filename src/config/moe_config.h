// Mixture-of-experts feed-forward settings of a config.json, Hugging Face field names verbatim:
// Qwen2MoeConfig / Qwen3MoeConfig (num_experts, num_experts_per_tok, moe_intermediate_size,
// shared_expert_intermediate_size, norm_topk_prob, decoder_sparse_step, mlp_only_layers,
// router_aux_loss_coef) and DeepseekV2Config / DeepseekV3Config (n_routed_experts,
// n_shared_experts, routed_scaling_factor, topk_method, n_group, topk_group, scoring_func,
// first_k_dense_replace, moe_layer_freq), and which layers are MoE (resolve_moe_layers).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_fields.h"

namespace llm0 {

/// How router logits become scores: softmax over the E experts (Qwen, DeepSeek-V2) or an
/// independent sigmoid per expert (DeepSeek-V3, `scoring_func: "sigmoid"`).
enum class MoeScoring { Softmax, Sigmoid };
/// How the k experts are chosen (`topk_method`): greedy top-k of the scores; group_limited_greedy
/// (DeepSeek-V2: groups ranked by their best score, the best topk_group kept); noaux_tc
/// (DeepSeek-V3: choice on scores + e_score_correction_bias, groups ranked by the sum of their two
/// best biased scores).
enum class MoeTopk { Greedy, GroupLimitedGreedy, NoauxTc };
/// How the experts' load is balanced in training: none, the Switch-Transformer auxiliary loss
/// (router_aux_loss_coef), or DeepSeek-V3's auxiliary-loss-free bias update (noaux_tc only).
enum class MoeBalance { None, AuxLoss, BiasUpdate };

/// The MoE sizes and routing rules of a model (every MoE layer shares them).
/// E = num_experts, K = num_experts_per_tok, Fe = moe_intermediate_size, Fs = shared width.
struct MoeConfig {
  int num_experts = 0;                      // E (DeepSeek: n_routed_experts); 0 = no MoE layer
  int num_experts_per_tok = 0;              // K
  int moe_intermediate_size = 0;            // Fe: each routed expert's SwiGLU width
  int shared_expert_intermediate_size = 0;  // Fs (qwen2_moe; DeepSeek: Fe × n_shared_experts); 0 = none
  int n_shared_experts = 0;                 // DeepSeek's count (kept for the config round trip)
  bool shared_expert_gate = false;          // qwen2_moe / qwen3_next: shared output × sigmoid(x·w)
  bool norm_topk_prob = false;              // divide the k chosen scores by their sum
  double routed_scaling_factor = 1.0;       // × the mixing weights after any renormalisation
  MoeScoring scoring = MoeScoring::Softmax;
  MoeTopk topk_method = MoeTopk::Greedy;
  int n_group = 1, topk_group = 1;          // expert groups (E / n_group experts each), groups kept
  double router_aux_loss_coef = 0;          // Switch auxiliary loss coefficient (DeepSeek: aux_loss_alpha)
  MoeBalance balance = MoeBalance::None;    // llm0: "moe_balance" (none | aux_loss | bias_update)
  // Layer-rule fields kept verbatim for to_json (LayerConfig::ffn holds the resolved kinds):
  int decoder_sparse_step = 1, first_k_dense_replace = 0, moe_layer_freq = 1;
  std::vector<int> mlp_only_layers;

  bool enabled() const { return num_experts > 0; }
  /// DeepSeek-V3's e_score_correction_bias [E] exists (topk_method noaux_tc).
  bool has_correction_bias() const { return topk_method == MoeTopk::NoauxTc; }
  bool grouped() const { return topk_method != MoeTopk::Greedy && n_group > 1; }
  /// HF names of the shared expert module: "shared_expert" (Qwen) or "shared_experts" (DeepSeek).
  std::string shared_name(bool deepseek) const { return deepseek ? "shared_experts" : "shared_expert"; }

  /// Reads the fields of `model_type`'s family from `j` (E = 0 when the family has no experts
  /// or the config sets none). Throws llm0::Error naming the field and `src`: non-positive
  /// sizes, K > E, E % n_group, topk_group > n_group, unknown scoring_func / topk_method, a
  /// correction bias with softmax scoring.
  static MoeConfig from_json(const nlohmann::json& j, const std::string& model_type,
                             const std::string& src);
  /// Writes the fields back (HF names of `model_type`'s family) into j.
  void to_json(nlohmann::json& j, const std::string& model_type) const;
  /// Re-checks the invariants. Throws llm0::Error naming the field.
  void validate(const std::string& src) const;
};

/// "none" | "aux_loss" | "bias_update" (config field or flag `moe_balance`). Throws llm0::Error
/// naming `src` for any other text.
MoeBalance parse_moe_balance(const std::string& s, const std::string& src);

/// True for the model types whose MoE fields use DeepSeek's names.
bool is_deepseek_type(const std::string& model_type);

/// The values Hugging Face's DeepseekV2Config / DeepseekV3Config give the MoE fields a config
/// omits (transformers' configuration_deepseek_v2.py / configuration_deepseek_v3.py). 0 in
/// num_experts_per_tok, n_group or topk_group: DeepseekV2Config's None, so the field must be
/// stated where it is used (K on any MoE layer; the groups with group_limited_greedy).
/// topk_method / scoring_func: DeepseekV3Config has neither field (its router is always sigmoid +
/// noaux_tc); DeepSeek's own configs state them. n_routed_experts (HF: 256 / 64) has no default
/// here: a config whose layers past first_k_dense_replace would have experts must state it (0 =
/// dense MLP layers), as a silent 256-expert model from a forgotten field helps nobody.
struct DeepseekMoeDefaults {
  int hf_n_routed_experts, n_shared_experts, num_experts_per_tok, moe_intermediate_size;
  int n_group, topk_group, first_k_dense_replace;
  double routed_scaling_factor;
  bool norm_topk_prob;
  const char* topk_method;
  const char* scoring_func;
};
/// The defaults of deepseek_v3 (`v3`) or deepseek_v2.
const DeepseekMoeDefaults& deepseek_moe_defaults(bool v3);

/// Which layers have a mixture-of-experts feed-forward (true) instead of the dense MLP, of length
/// num_hidden_layers. DeepSeek (model_type deepseek_*; HF DeepseekV2DecoderLayer): layer i is MoE
/// iff n_routed_experts > 0, i >= first_k_dense_replace (HF default: 3 for deepseek_v3, 0 for
/// deepseek_v2) and i % moe_layer_freq == 0 (DeepSeek's own modelling code; transformers has no
/// moe_layer_freq); n_routed_experts must be stated when a layer >= first_k_dense_replace exists. Qwen
/// (qwen2_moe, qwen3_moe, qwen3_next; HF Qwen3MoeDecoderLayer): iff num_experts > 0, i not in
/// mlp_only_layers and (i + 1) % decoder_sparse_step == 0. Other model types: none. Throws
/// llm0::Error naming a field that is present but invalid, or the missing n_routed_experts.
std::vector<bool> resolve_moe_layers(const ConfigFields& f, int64_t num_hidden_layers);

}  // namespace llm0
