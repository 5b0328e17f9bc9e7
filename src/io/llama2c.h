// llama2.c checkpoints (github.com/karpathy/llama2.c, run.c read_checkpoint and export.py
// legacy_export / version1_export) -> a Hugging Face Llama checkpoint directory.
// Legacy v0: 7 int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (negative =
// untied classifier), seq_len), then float32 token_embedding [V, C], rms_att [L, C], wq [L, C, C],
// wk [L, Ckv, C], wv [L, Ckv, C], wo [L, C, C], rms_ffn [L, C], w1 [L, F, C], w2 [L, C, F],
// w3 [L, F, C], rms_final [C], freq_cis_real/imag [seq_len, D/2] (skipped), wcls [V, C] if untied.
// v1 ("ak42" magic, version 1): the same 7 int32, a shared-classifier byte, padding to 256 bytes,
// then float32 norms (att [L, C], ffn [L, C], final [C]), token_embedding, wq, wk, wv, wo, w1, w2,
// w3 (all layers each), wcls if unshared. v2 (Q8_0) is refused by name.
// q/k rows come in llama2.c's interleaved RoPE pairs; HF uses rotate-half (see llama2c.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace llm0 {

/// The hyper-parameters of a llama2.c checkpoint header.
struct Llama2cHeader {
  int version = 0;             // 0 legacy, 1 float32 export
  int dim = 0;                 // C = hidden_size
  int hidden_dim = 0;          // F = intermediate_size
  int n_layers = 0;            // L
  int n_heads = 0;             // H
  int n_kv_heads = 0;          // Hkv
  int vocab_size = 0;          // V (always positive here)
  int seq_len = 0;             // max_position_embeddings
  bool shared_classifier = true;
};

/// A llama2.c model with its tensors under Hugging Face names (q/k rows already in rotate-half
/// order), in the order model.safetensors stores them.
struct Llama2cModel {
  Llama2cHeader header;
  std::vector<std::string> names;           // HF tensor names
  std::vector<std::vector<int64_t>> shapes;  // row-major, outermost first
  std::vector<std::vector<float>> values;
};

/// Reads the llama2.c checkpoint at `path` (legacy v0 or version 1). Throws llm0::Error naming
/// the file for: unreadable file, unknown magic/version ("version 2 (Q8_0 export) is not
/// supported"), sizes that are not positive or do not divide (dim by n_heads, n_heads by
/// n_kv_heads, odd head size), and a file whose size differs from what the header implies
/// (the message gives both sizes in bytes: truncated or extra data).
Llama2cModel read_llama2c_model(const std::string& path);

/// Moves the rows of a q_proj/k_proj weight [heads*D, cols] from llama2.c's interleaved RoPE
/// pairs (rows 2i, 2i+1 of each head) to HF's rotate-half layout (rows i, i + D/2): the inverse
/// of `permute` in transformers' convert_llama_weights_to_hf.py.
std::vector<float> interleaved_to_rotate_half(const std::vector<float>& w, int heads, int D, int cols);

/// Writes a Hugging Face directory at `out_dir` (atomically): config.json (LlamaForCausalLM),
/// model.safetensors (F32), generation_config.json (bos 1, eos 2) and tokenizer.json made from
/// the llama2.c tokenizer `tokenizer_path` (llama2c_tokenizer.h). Throws llm0::Error if the
/// tokenizer's vocabulary size differs from the model's, or on any reading/writing error.
void convert_llama2c(const std::string& model_path, const std::string& tokenizer_path,
                     const std::string& out_dir);

}  // namespace llm0
