// Sizes of a multi-head latent attention layer, Hugging Face DeepseekV2Config / DeepseekV3Config
// field names (DeepSeek-V2, arXiv:2405.04434 §2.1; transformers/models/deepseek_v3/
// configuration_deepseek_v3.py). Read and checked with the rest of config.json by
// ModelConfig::from_json (config/config.h); the layer (layers/mla.h) and its double-precision
// reference (ops/ref/ref_mla.h) take these sizes.
#pragma once

namespace llm0 {

/// MLA sizes. q_lora_rank 0 = no query compression (q_proj).
struct MlaConfig {
  int q_lora_rank = 0;       // query latent rank (0: q_proj [H·(dn+dr), C])
  int kv_lora_rank = 0;      // r: the cached latent c_kv
  int qk_nope_head_dim = 0;  // dn: per-head query/key dims without position
  int qk_rope_head_dim = 0;  // dr: per-head rotary dims (the key's are one head shared by all)
  int v_head_dim = 0;        // dv
  bool enabled() const { return kv_lora_rank > 0; }
  int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

}  // namespace llm0
