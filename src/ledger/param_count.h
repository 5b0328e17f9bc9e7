// Parameter ledger: total parameters and the parameters one token uses (active), from a
// ModelConfig, for dense and mixture-of-experts models. A token uses every parameter of a dense
// layer, and in an MoE layer the router, its K routed experts and the shared expert(s) (DeepSeek-V3
// §4.2 counts "activated parameters" the same way: 37B of 671B). Embedding table and lm_head
// count in both figures (each token reads its embedding row and the whole lm_head; published
// totals include both: Qwen3-30B-A3B 30.5B / 3.3B, DeepSeek-V3 671B / 37B without its MTP module).
#pragma once
#include "config/config.h"

namespace llm0 {

struct ParamCount {
  double total = 0;      // every parameter of the checkpoint (tied lm_head counted once)
  double active = 0;     // the parameters one token's forward uses
  double embedding = 0;  // token (+ position) embedding tables
  double experts = 0;    // routed experts of all MoE layers (all E of them)
  double matmul_active = 0;  // active parameters that enter matrix products (lm_head included,
                             // embeddings and norms excluded): 2 FLOPs each per token forward
};

/// Counts the parameters of `c` exactly as Model declares them (model/param_table.cpp).
ParamCount count_parameters(const ModelConfig& c);

/// Bytes of weights one decode step reads (`bench generate`'s weight_bytes_per_token): every
/// parameter but the untied input embedding table (one row per token) and the routed experts the
/// token is not sent to (total − active of count_parameters); the `bf16_numel` numbers the model
/// holds in BF16 (Model::bf16_numel: the matrices, routed and shared experts included, which is
/// every expert left out here when bf16_numel > 0) at 2 bytes, the rest at 4.
/// `num_parameters` = Model::num_parameters().
double decode_weight_bytes(const ModelConfig& c, double num_parameters, double bf16_numel);

/// A config.json read for counting: its text_config when nested, rope_scaling ignored (it
/// changes no parameter; the engine refuses it for running). Throws llm0::Error naming the file
/// and field for anything else ModelConfig::from_json refuses.
ModelConfig read_config_for_count(const std::string& path);

}  // namespace llm0
