// llama.cpp's tensor names of Hugging Face parameters (gguf-py tensor_mapping.py / constants.py
// MODEL_TENSOR names: model.layers.N.self_attn.q_proj.weight <-> blk.N.attn_q.weight, ...) and the
// Q/K row permutation between HF's rotate-half RoPE and llama.cpp's `llama` adjacent pairs
// (convert_hf_to_gguf.py `permute`). Shared by the GGUF exporter and importer.
#pragma once
#include <string>
#include <vector>

namespace llm0 {

/// llama.cpp's name of an llm0 (Hugging Face) parameter, e.g. "model.norm.weight" ->
/// "output_norm.weight". Throws llm0::Error on a name with no llama.cpp counterpart.
std::string gguf_tensor_name(const std::string& hf_name);

/// Rows of a [n_head * D, cols] projection from rotate-half order (per head: first halves, then
/// second halves) to interleaved pairs: out row h*D + 2i + j = in row h*D + j*D/2 + i
/// (convert_hf_to_gguf.py `permute`). D must be even.
std::vector<float> rope_rows_to_interleaved(const float* w, int n_head, int D, int cols);
/// The inverse of rope_rows_to_interleaved.
std::vector<float> rope_rows_to_rotate_half(const float* w, int n_head, int D, int cols);

}  // namespace llm0
