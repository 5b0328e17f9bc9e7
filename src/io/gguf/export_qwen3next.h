// GGUF export of a qwen3_next hybrid (Gated DeltaNet + gated attention + MoE with a gated shared
// expert) for llama.cpp's `qwen3next` architecture (llama.cpp src/models/qwen3next.cpp; conversion
// conversion/qwen.py Qwen3NextModel at commit 80fb11a). What the conversion changes:
//   in_proj_qkvz [2·nk·dk + 2·nv·dv, C] (grouped by key head: [q_g | k_g | v_g | z_g]) ->
//     blk.{i}.attn_qkv [all q | all k | all v] (the conv channels' order) + blk.{i}.attn_gate [z];
//   in_proj_ba -> ssm_ba (unchanged: llama.cpp splits it per key head itself);
//   conv1d.weight [Cc, 1, K] -> ssm_conv1d [Cc, K]; dt_bias -> ssm_dt.bias;
//   A_log -> ssm_a = −exp(A_log); norm.weight -> ssm_norm (plain w); out_proj -> ssm_out;
//   every other RMSNorm weight (input, post-attention -> post_attention_norm, final, q_norm,
//   k_norm) is stored as 1 + w: llama.cpp multiplies by the stored weight, Qwen3-Next by (1 + w);
//   q_proj (per head [query | gate]) is written as it is: llama.cpp splits it the same way.
#pragma once
#include <string>

#include "io/gguf/writer.h"
#include "model/model.h"

namespace llm0 {

/// Checks that llama.cpp's qwen3next runs `c` as Hugging Face's Qwen3NextForCausalLM does and
/// returns "qwen3next". Throws llm0::Error naming what it cannot represent (shared/PEERS.md):
/// layers without experts or without the gated shared expert, norm_topk_prob false,
/// linear_value_head_dim != linear_key_head_dim, a layer pattern that no
/// full_attention_interval describes, biases, sliding windows, positions other than RoPE.
std::string qwen3next_architecture(const ModelConfig& c);

/// The Gated DeltaNet keys (ssm.conv_kernel K, ssm.state_size dk, ssm.group_count nk,
/// ssm.time_step_rank nv, ssm.inner_size nv·dv) and full_attention_interval.
void add_qwen3next_metadata(GgufWriter& g, const ModelConfig& c);

/// Writes parameter `p` as llama.cpp's qwen3next stores it and returns true when it is one the
/// conversion changes (linear_attn.*, the (1 + w) norms); false for the rest (written by name).
bool add_qwen3next_tensor(GgufWriter& g, const Model& model, const ParamInfo& p, GgmlType dtype);

}  // namespace llm0
