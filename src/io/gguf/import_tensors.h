// GGUF tensors -> Hugging Face parameters: the inverse of io/gguf/export.cpp (names, llama's Q/K
// RoPE row permutation), export_moe.cpp (stacked experts, router, shared experts) and
// export_qwen3next.cpp (attn_qkv + attn_gate -> in_proj_qkvz, ssm_conv1d [Cc, K] ->
// conv1d [Cc, 1, K], ssm_a = -exp(A_log), the (1 + w) norms), and of deepseek2's kv_b split
// (attn_k_b [H, r, dn] + attn_v_b [H, dv, r] -> kv_b_proj [H·(dn+dv), r]; a file that also holds
// attn_kv_b, as llama.cpp's convert_hf_to_gguf.py writes, gives it directly). Shapes are PyTorch
// order (outermost first).
#pragma once
#include <string>
#include <vector>

#include "config/config.h"
#include "core/tensor.h"
#include "io/gguf/metadata.h"
#include "io/safetensors.h"

namespace llm0 {

/// One Hugging Face parameter: values (float32, row-major) and the dtype it is written in.
struct HfTensor {
  std::string name;
  Shape shape;
  std::vector<float> values;
  DType dtype = DType::F32;
};

/// Every parameter `cfg` implies (model/param_table.h), taken from the GGUF tensors. Written
/// dtype: a tensor stored as F16 or BF16 and moved unchanged keeps that dtype (bitwise); other
/// matrices (F32, or quantized types dequantized by GgufTensorInfo::to_float) get `dtype`; 1-D
/// tensors and values computed from the file (A_log, qwen3next's norms) stay F32.
/// Throws llm0::Error naming the file and the tensor: a tensor missing, a shape that disagrees
/// with the config, a tensor left over that no parameter uses, ssm_a not negative.
std::vector<HfTensor> gguf_model_tensors(const GgufMeta& meta, const ModelConfig& cfg, DType dtype);

}  // namespace llm0
