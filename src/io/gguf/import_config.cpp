// gguf_model_config (see import_config.h).
#include "io/gguf/import_config.h"

#include "core/check.h"

namespace llm0 {

namespace {

// Keys every architecture shares (llama-model.cpp load_hparams, the LLM_KV_* part before the
// per-architecture switch).
void read_common(const GgufMeta& m, const std::string& a, ModelConfig& c) {
  c.hidden_size = m.req_int(a + "embedding_length");
  c.num_hidden_layers = m.req_int(a + "block_count");
  c.num_attention_heads = m.req_int(a + "attention.head_count");
  LLM0_CHECK(c.num_attention_heads > 0, "{}: GGUF key {}attention.head_count is 0", m.where, a);
  c.num_key_value_heads = m.opt_int(a + "attention.head_count_kv").value_or(c.num_attention_heads);
  c.max_position_embeddings = m.req_int(a + "context_length");
  c.rms_norm_eps = m.req_float(a + "attention.layer_norm_rms_epsilon");
  c.rope_theta = m.opt_float(a + "rope.freq_base").value_or(10000.0);
  const std::optional<std::string> scaling = m.opt_string(a + "rope.scaling.type");
  LLM0_CHECK(!scaling || *scaling == "none", "{}: GGUF key {}rope.scaling.type = \"{}\": RoPE "
             "scaling is not supported (only plain RoPE)", m.where, a, scaling.value_or(""));
  LLM0_CHECK(!m.file.find(a + "attention.sliding_window"), "{}: GGUF key {}attention.sliding_window:"
             " sliding-window layers are not imported", m.where, a);
  const GgufTensorInfo* embd = m.file.tensor("token_embd.weight");
  LLM0_CHECK(embd != nullptr, "{}: GGUF tensor token_embd.weight is missing", m.where);
  const std::optional<int> vocab = m.opt_int(a + "vocab_size");
  const int64_t rows = embd->shape().front();
  LLM0_CHECK(vocab || rows <= 2147483647, "{}: GGUF tensor token_embd.weight has {} rows, beyond "
             "the 32-bit vocab_size", m.where, rows);
  c.vocab_size = vocab ? *vocab : (int)rows;
  c.tie_word_embeddings = m.file.tensor("output.weight") == nullptr;
  c.bos_token_id = m.opt_int("tokenizer.ggml.bos_token_id").value_or(-1);
  c.eos_token_id = m.opt_int("tokenizer.ggml.eos_token_id").value_or(-1);
}

// head_dim and partial rotary of a grouped-query architecture.
void read_heads(const GgufMeta& m, const std::string& a, ModelConfig& c, bool partial_ok) {
  c.head_dim = m.opt_int(a + "attention.key_length").value_or(c.hidden_size / c.num_attention_heads);
  const int dv = m.opt_int(a + "attention.value_length").value_or(c.head_dim);
  LLM0_CHECK(dv == c.head_dim, "{}: GGUF key {}attention.value_length = {} differs from key_length "
             "{}; llm0 has one head_dim", m.where, a, dv, c.head_dim);
  const int rot = m.opt_int(a + "rope.dimension_count").value_or(c.head_dim);
  LLM0_CHECK(rot > 0 && (partial_ok || rot == c.head_dim), "{}: GGUF key {}rope.dimension_count = "
             "{} with head dim {}: partial rotary is imported for the NEOX (rotate-half) "
             "architectures only", m.where, a, rot, c.head_dim);
  c.partial_rotary_factor = (double)rot / c.head_dim;
  LLM0_CHECK(c.rotary_dim() == rot, "{}: GGUF key {}rope.dimension_count = {} is not "
             "int(head_dim × factor) for any factor llm0 stores", m.where, a, rot);
}

// Qwen-style experts on every layer (qwen3moe, qwen3next): llama.cpp always renormalises.
void read_qwen_moe(const GgufMeta& m, const std::string& a, ModelConfig& c) {
  MoeConfig& e = c.moe;
  e.num_experts = m.req_int(a + "expert_count");
  e.num_experts_per_tok = m.req_int(a + "expert_used_count");
  e.moe_intermediate_size = m.req_int(a + "expert_feed_forward_length");
  e.norm_topk_prob = m.opt_bool(a + "expert_weights_norm").value_or(true);
  LLM0_CHECK(e.norm_topk_prob, "{}: GGUF key {}expert_weights_norm is false, but llama.cpp's {} "
             "always renormalises the top-k weights", m.where, a, a.substr(0, a.size() - 1));
  c.layers.assign((size_t)c.num_hidden_layers, LayerConfig{});
  for (LayerConfig& l : c.layers) l.ffn = FfnKind::Moe;
}

void read_deepseek2(const GgufMeta& m, const std::string& a, ModelConfig& c) {
  MlaConfig& mla = c.mla;
  mla.q_lora_rank = m.opt_int(a + "attention.q_lora_rank").value_or(0);
  mla.kv_lora_rank = m.req_int(a + "attention.kv_lora_rank");
  mla.qk_rope_head_dim = m.req_int(a + "rope.dimension_count");
  const bool absorbed = m.file.find(a + "attention.key_length_mla") != nullptr;  // MQA over latents
  const int key = m.req_int(a + (absorbed ? "attention.key_length_mla" : "attention.key_length"));
  mla.v_head_dim = m.req_int(a + (absorbed ? "attention.value_length_mla" : "attention.value_length"));
  LLM0_CHECK(key > mla.qk_rope_head_dim, "{}: GGUF key length {} is not larger than "
             "rope.dimension_count {}", m.where, key, mla.qk_rope_head_dim);
  mla.qk_nope_head_dim = key - mla.qk_rope_head_dim;
  c.head_dim = mla.qk_rope_head_dim;
  c.num_key_value_heads = c.num_attention_heads;
  c.layers.assign((size_t)c.num_hidden_layers, LayerConfig{LayerKind::LatentAttention, 0, FfnKind::Mlp});
  MoeConfig& e = c.moe;
  e.num_experts = m.opt_int(a + "expert_count").value_or(0);
  c.model_type = "deepseek_v2";
  if (e.num_experts == 0) return;  // every layer dense
  e.num_experts_per_tok = m.req_int(a + "expert_used_count");
  e.moe_intermediate_size = m.req_int(a + "expert_feed_forward_length");
  e.n_shared_experts = m.opt_int(a + "expert_shared_count").value_or(0);
  const int64_t shared = (int64_t)e.n_shared_experts * e.moe_intermediate_size;  // Fs = n·Fe
  LLM0_CHECK(shared <= (1 << 20), "{}: {} shared experts of width {} are beyond llm0's limit", m.where,
             e.n_shared_experts, e.moe_intermediate_size);
  e.shared_expert_intermediate_size = (int)shared;
  e.first_k_dense_replace = m.opt_int(a + "leading_dense_block_count").value_or(0);
  e.routed_scaling_factor = m.opt_float(a + "expert_weights_scale").value_or(1.0);
  e.norm_topk_prob = m.opt_bool(a + "expert_weights_norm").value_or(false);
  const int gating = m.opt_int(a + "expert_gating_func").value_or(1);  // 1 softmax, 2 sigmoid
  LLM0_CHECK(gating == 1 || gating == 2, "{}: GGUF key {}expert_gating_func = {} is not 1 "
             "(softmax) or 2 (sigmoid)", m.where, a, gating);
  e.n_group = m.opt_int(a + "expert_group_count").value_or(1);
  e.topk_group = m.opt_int(a + "expert_group_used_count").value_or(1);
  if (gating == 2) {  // DeepSeek-V3: sigmoid + e_score_correction_bias (exp_probs_b)
    c.model_type = "deepseek_v3";
    e.scoring = MoeScoring::Sigmoid, e.topk_method = MoeTopk::NoauxTc;
  } else {
    LLM0_CHECK(e.n_group <= 1, "{}: GGUF key {}expert_group_count = {} with softmax routing: "
               "llama.cpp ranks groups by the sum of their two best scores, which no DeepSeek-V2 "
               "config expresses", m.where, a, e.n_group);
    e.n_group = e.topk_group = 1;
  }
  for (int il = e.first_k_dense_replace; il < c.num_hidden_layers; ++il)
    c.layers[(size_t)il].ffn = FfnKind::Moe;
}

void read_qwen3next(const GgufMeta& m, const std::string& a, ModelConfig& c) {
  read_heads(m, a, c, true);
  GatedDeltaNetConfig& d = c.linear;
  d.linear_conv_kernel_dim = m.req_int(a + "ssm.conv_kernel");
  d.linear_key_head_dim = m.req_int(a + "ssm.state_size");
  d.linear_num_key_heads = m.req_int(a + "ssm.group_count");
  d.linear_num_value_heads = m.req_int(a + "ssm.time_step_rank");
  const int inner = m.req_int(a + "ssm.inner_size");
  LLM0_CHECK(d.linear_num_value_heads > 0 && inner % d.linear_num_value_heads == 0, "{}: GGUF key "
             "{}ssm.inner_size = {} is not a multiple of ssm.time_step_rank = {}", m.where, a, inner,
             d.linear_num_value_heads);
  d.linear_value_head_dim = inner / d.linear_num_value_heads;
  const int n = m.req_int(a + "full_attention_interval");
  LLM0_CHECK(n > 0, "{}: GGUF key {}full_attention_interval is 0", m.where, a);
  read_qwen_moe(m, a, c);
  c.moe.shared_expert_intermediate_size = m.req_int(a + "expert_shared_feed_forward_length");
  c.moe.shared_expert_gate = true;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    if ((il + 1) % n != 0) c.layers[(size_t)il].kind = LayerKind::LinearAttention;
  c.attn_output_gate = true;
  c.use_qk_norm = true;
}

// Sizes beyond any published model, refused before the parameter table is declared: products of
// them (H·D·2, 2·nk·dk + 2·nv·dv, H·(dn + dv)) then stay below 2^31, and a block_count larger
// than the file's tensor count cannot make the importer loop over absent layers.
void check_limits(const GgufMeta& m, const ModelConfig& c) {
  const auto cap = [&](const char* field, int v, int limit) {
    LLM0_CHECK(v <= limit, "{}: {} = {} from the GGUF metadata is beyond llm0's limit {}", m.where,
               field, v, limit);
  };
  LLM0_CHECK((size_t)c.num_hidden_layers <= m.file.tensors.size(), "{}: block_count {} is larger "
             "than the {} tensors of the file", m.where, c.num_hidden_layers, m.file.tensors.size());
  constexpr int kHeads = 1 << 13, kDim = 1 << 15, kHidden = 1 << 16, kWidth = 1 << 20;
  for (const auto& [field, v] : {std::pair{"num_attention_heads", c.num_attention_heads},
           {"num_key_value_heads", c.num_key_value_heads}, {"num_experts", c.moe.num_experts},
           {"linear_num_key_heads", c.linear.linear_num_key_heads},
           {"linear_num_value_heads", c.linear.linear_num_value_heads}})
    cap(field, v, kHeads);
  for (const auto& [field, v] : {std::pair{"head_dim", c.head_dim}, {"kv_lora_rank", c.mla.kv_lora_rank},
           {"q_lora_rank", c.mla.q_lora_rank}, {"qk_nope_head_dim", c.mla.qk_nope_head_dim},
           {"v_head_dim", c.mla.v_head_dim}, {"linear_key_head_dim", c.linear.linear_key_head_dim},
           {"linear_value_head_dim", c.linear.linear_value_head_dim},
           {"linear_conv_kernel_dim", c.linear.linear_conv_kernel_dim}})
    cap(field, v, kDim);
  cap("hidden_size", c.hidden_size, kHidden);
  for (const auto& [field, v] : {std::pair{"intermediate_size", c.intermediate_size},
           {"moe_intermediate_size", c.moe.moe_intermediate_size},
           {"shared_expert_intermediate_size", c.moe.shared_expert_intermediate_size}})
    cap(field, v, kWidth);
}

}  // namespace

ModelConfig gguf_model_config(const GgufMeta& m) {
  const std::string arch = m.req_string("general.architecture");
  static const std::pair<const char*, const char*> kTypes[] = {
      {"llama", "llama"}, {"qwen2", "qwen2"}, {"qwen3", "qwen3"}, {"qwen3moe", "qwen3_moe"},
      {"deepseek2", "deepseek_v2"}, {"qwen3next", "qwen3_next"}};
  ModelConfig c;
  c.model_type.clear();
  for (const auto& [gguf, hf] : kTypes)
    if (arch == gguf) c.model_type = hf;
  LLM0_CHECK(!c.model_type.empty(), "{}: GGUF architecture \"{}\" is not supported (llm0 imports "
             "llama, qwen2, qwen3, qwen3moe, deepseek2 and qwen3next)", m.where, arch);
  const std::string a = arch + ".";
  read_common(m, a, c);
  const bool moe = arch == "qwen3moe" || arch == "qwen3next";
  // Dense width; an all-MoE model need not state it (llama.cpp reads it only for dense layers).
  const std::optional<int> ff = m.opt_int(a + "feed_forward_length");
  c.intermediate_size = moe && !ff ? m.req_int(a + "expert_feed_forward_length")
                                   : m.req_int(a + "feed_forward_length");
  if (arch == "deepseek2") read_deepseek2(m, a, c);
  else if (arch == "qwen3next") read_qwen3next(m, a, c);
  else read_heads(m, a, c, arch != "llama");
  if (arch == "qwen3" || arch == "qwen3moe") c.use_qk_norm = true;
  if (arch == "qwen3moe") read_qwen_moe(m, a, c);
  check_limits(m, c);
  c.validate(m.where);
  return c;
}

}  // namespace llm0
