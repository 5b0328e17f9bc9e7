// Export of an llm0 checkpoint to GGUF for llama.cpp (its `llama`, `qwen3`, `qwen3moe`,
// `qwen3next` and `deepseek2` architectures; the last three in export_moe.h,
// export_qwen3next.h), following llama.cpp's convert_hf_to_gguf.py (LlamaModel, Qwen3Model)
// and the key names of gguf-py/gguf/constants.py. Tensors are renamed
// (model.layers.N.self_attn.q_proj.weight -> blk.N.attn_q.weight, ...) and keep their PyTorch
// layout; GGUF lists dims reversed. For `llama`,
// whose RoPE rotates adjacent pairs (x[2i], x[2i+1]), the rows of q_proj and k_proj are permuted
// per head from llm0's rotate-half layout (x[i], x[i + D/2]); `qwen3` uses rotate-half (NEOX) and
// takes them unchanged. The tokenizer: io/gguf/export_tokenizer.h.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "config/config.h"
#include "io/gguf/tensor_names.h"
#include "io/gguf/writer.h"

namespace llm0 {

/// What export_gguf wrote.
struct GgufExportSummary {
  std::string architecture;  // "llama", "qwen3", "qwen3moe", "qwen3next" or "deepseek2"
  size_t tensors = 0;        // tensors in the file
  size_t parameters = 0;     // elements over all tensors
};

/// The llama.cpp architecture for `cfg`: "llama" for model_type llama, "qwen3" for qwen3,
/// "qwen3moe" for qwen3_moe, "qwen3next" for qwen3_next (export_qwen3next.h), "deepseek2" for deepseek_v2 / deepseek_v3 (MLA, dense MLP layers, no biases, rms_norm_eps
/// 1e-6 — llama.cpp normalises the latents with rms_norm_eps).
/// Throws llm0::Error naming the feature llama.cpp cannot represent: another model_type, learned
/// or no positions, LayerNorm, a GELU MLP, biases, partial rotary (llama.cpp's llama and qwen3
/// require rope.dimension_count == head_dim), QK-norm in llama, no QK-norm in qwen3.
std::string gguf_architecture(const ModelConfig& cfg);

/// Writes the checkpoint at `model_dir` (resolve_checkpoint_dir: a checkpoint or a run
/// directory; needs config.json, model.safetensors and tokenizer.json) to `output` as GGUF v3.
/// Matrices are stored as `dtype` (F32, F16 or BF16, rounded to nearest even); 1-D tensors (norm weights) always as F32, as
/// convert_hf_to_gguf.py does. The file is written via output + ".tmp" and renamed: on any error
/// nothing is left at `output`. Throws llm0::Error: unsupported feature (gguf_architecture), a
/// missing tokenizer.json, a tokenizer larger than vocab_size, an unwritable output.
GgufExportSummary export_gguf(const std::string& model_dir, const std::string& output,
                              GgmlType dtype = GgmlType::F32);

}  // namespace llm0
