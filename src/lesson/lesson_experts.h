// `llm0 lesson experts`: a mixture-of-experts model measured by the engine (docs/derivations/moe.md).
//  1. Parameters: total vs active per token (`llm0 params`' ledger), checked against the model's
//     own parameter count — what a token pays for is K of E experts plus everything dense.
//  2. Routing: one batch of random tokens through the model (random weights, init_weights): the
//     tokens each MoE layer sent to each expert, and the busiest / idlest expert's share.
//  3. The top-1 trap: the router's gradient from the language-model loss alone (no balancing term),
//     measured by the engine's backward on the same batch for K = 1 renormalised, K = 1 raw and
//     K = 2 renormalised. With K = 1 and norm_topk_prob the single mixing weight is 1 whatever the
//     score, so the router's gradient is exactly zero: such a router learns only from balancing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::lesson {

struct ExpertsOptions {
  std::string config;  ///< model config.json with MoE layers
  int tokens = 96;     ///< tokens of the routed batch (one sequence)
  uint64_t seed = 1;
};

struct ExpertLayerLoad {
  int layer = 0;
  std::vector<uint64_t> tokens;  ///< [E] (token, slot) rows routed to each expert
  double max_share = 0, min_share = 0;  ///< busiest / idlest expert's share of the rows
};

struct RouterGradient {
  int top_k = 0;
  bool renormalised = false;
  double max_abs = 0;  ///< max |∂L/∂mlp.gate.weight| over the MoE layers (cross-entropy only)
};

struct ExpertsLesson {
  std::string config, model_type;
  int experts = 0, top_k = 0, moe_layers = 0, layers = 0;
  double total_params = 0, active_params = 0, expert_params = 0;  ///< ledger
  size_t model_params = 0;                                         ///< Model::num_parameters
  std::vector<ExpertLayerLoad> loads;
  std::vector<RouterGradient> gradients;
};

/// Runs the lesson. Throws llm0::Error naming the option for a token count outside [2, 4096] or
/// a config without MoE layers, or what reading the config throws.
ExpertsLesson run_experts_lesson(const ExpertsOptions& opt);
/// The text report.
std::string experts_text(const ExpertsLesson& l);
/// The lesson as JSON (field names as in the structs).
nlohmann::json to_json(const ExpertsLesson& l);

}  // namespace llm0::lesson
