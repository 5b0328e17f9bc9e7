// Parameter ledger: total parameters and the parameters one token uses (active), from a
// ModelConfig, for dense and mixture-of-experts models. A token uses every parameter of a dense
// layer, and in an MoE layer the router, its K routed experts and the shared expert(s) (DeepSeek-V3
// §4.2 counts "activated parameters" the same way: 37B of 671B). Embedding table and lm_head
// count in both figures (each token reads its embedding row and the whole lm_head; published
// totals include both: Qwen3-30B-A3B 30.5B / 3.3B, DeepSeek-V3 671B / 37B without its MTP module).
#pragma once
#include "model/config.h"

namespace llm0 {

struct ParamCount {
  double total = 0;      // every parameter of the checkpoint (tied lm_head counted once)
  double active = 0;     // the parameters one token's forward uses
  double embedding = 0;  // token (+ position) embedding tables
  double experts = 0;    // routed experts of all MoE layers (all E of them)
  double matmul_active = 0;  // active parameters that enter matrix products (lm_head included,
                             // embeddings and norms excluded): 2 FLOPs each per token forward
};

/// Counts the parameters of `c` exactly as Model declares them (model/param_layout.cpp).
ParamCount count_parameters(const ModelConfig& c);

/// A config.json read for counting: its text_config when nested, rope_scaling ignored (it
/// changes no parameter; the engine refuses it for running). Throws llm0::Error naming the file
/// and field for anything else ModelConfig::from_json refuses.
ModelConfig read_config_for_count(const std::string& path);

}  // namespace llm0
