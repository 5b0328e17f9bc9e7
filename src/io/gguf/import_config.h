// GGUF metadata -> Hugging Face config (ModelConfig, written as config.json): the inverse of
// io/gguf/export.cpp's add_model_metadata for llama.cpp's llama, qwen2, qwen3, qwen3moe, deepseek2
// and qwen3next architectures (keys: gguf-py constants.py LLM_KV_*; the defaults llama.cpp's
// llama-model.cpp load_hparams gives optional keys). model_type: llama, qwen2, qwen3, qwen3_moe,
// deepseek_v2 (softmax routing or dense) / deepseek_v3 (sigmoid routing), qwen3_next.
#pragma once
#include <string>

#include "config/config.h"
#include "io/gguf/metadata.h"

namespace llm0 {

/// The model config a GGUF file describes. Required keys: general.architecture,
/// {arch}.block_count, .embedding_length, .attention.head_count, .context_length,
/// .attention.layer_norm_rms_epsilon, .feed_forward_length (dense layers), MoE and MLA sizes,
/// qwen3next's ssm.* and full_attention_interval. Optional as in llama.cpp: head_count_kv (= heads),
/// key_length (= embedding / heads), rope.dimension_count (= head dim), rope.freq_base (10000),
/// vocab_size (= rows of token_embd.weight). tie_word_embeddings: no output.weight tensor.
/// Throws llm0::Error naming the file and the key: another architecture, a missing key, a key of
/// the wrong type, RoPE scaling, a value length that differs from the key length, a rotary
/// dimension llm0 cannot express, a grouped softmax router (llama.cpp ranks groups by the V3 rule),
/// sizes beyond llm0's limits (heads and experts 8192, head and latent dims 32768, hidden 65536,
/// intermediate 2^20, block_count more than the file's tensors: refused before anything is
/// allocated) and whatever ModelConfig::validate refuses.
ModelConfig gguf_model_config(const GgufMeta& meta);

}  // namespace llm0
