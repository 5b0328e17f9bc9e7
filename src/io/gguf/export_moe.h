// GGUF export of mixture-of-experts layers for llama.cpp's qwen3moe, qwen3next and deepseek2
// architectures (llama.cpp src/models/qwen3moe.cpp, qwen3next.cpp, deepseek2.cpp; conversion
// convert_hf_to_gguf.py Qwen3MoeModel / Qwen2MoeModel / DeepseekV2Model): the router blk.{i}.ffn_gate_inp [E, C], experts stacked
// into blk.{i}.ffn_{gate,up}_exps [E, Fe, C] and ffn_down_exps [E, C, Fe] (row-major, outermost
// first; ggml writes the reverse order), the shared expert(s) as ffn_{gate,up,down}_shexp, Qwen's
// shared_expert_gate [1, C] as ffn_gate_inp_shexp, e_score_correction_bias as exp_probs_b.bias; the routing hyper-parameters as metadata.
#pragma once
#include <string>

#include "io/gguf/writer.h"
#include "model/model.h"

namespace llm0 {

/// Refuses MoE configs llama.cpp's `arch` would run differently (shared/PEERS.md): qwen3moe and
/// qwen3next need every layer MoE and norm_topk_prob, qwen3next the gated shared expert (qwen3moe
/// and deepseek2 none); deepseek2 needs the experts on every layer from
/// first_k_dense_replace on (moe_layer_freq 1), an ungated shared expert and no
/// group_limited_greedy (llama.cpp ranks groups by the V3 rule). Throws llm0::Error naming it.
void check_gguf_moe(const ModelConfig& c, const std::string& arch);

/// The expert metadata keys of `arch` (no-op for a model without experts).
void add_gguf_moe_metadata(GgufWriter& g, const ModelConfig& c, const std::string& arch);

/// Writes the MoE tensor(s) that parameter `p` belongs to and returns true (a routed expert's
/// tensors are written once, stacked, at expert 0's gate_proj); false for a non-MoE parameter.
bool add_gguf_moe_tensor(GgufWriter& g, const Model& model, const ParamInfo& p, GgmlType dtype);

}  // namespace llm0
