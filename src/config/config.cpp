// config.json <-> ModelConfig. See config.h.
#include "config/config.h"

#include <filesystem>
#include <fstream>
#include <type_traits>

#include "config/config_fields.h"
#include "config/gated_deltanet_config.h"
#include "config/moe_config.h"
#include "core/check.h"
#include "core/json_file.h"
#include "core/json_parse.h"

namespace llm0 {

namespace {

template <class T>
T get_field(const nlohmann::json& j, const char* key, const std::string& src) {
  LLM0_CHECK(j.contains(key) && !j[key].is_null(), "{}: missing required field \"{}\"", src, key);
  if constexpr (std::is_same_v<T, int>) {  // integers: no silent truncation or wrap-around
    const nlohmann::json& v = j[key];
    LLM0_CHECK(v.is_number_integer(), "{}: field \"{}\" must be an integer, got {}", src, key, json_excerpt(v));
    LLM0_CHECK(v.is_number_unsigned() ? v.get<uint64_t>() <= 2147483647ULL
                                      : v.get<int64_t>() >= -2147483648LL && v.get<int64_t>() <= 2147483647LL,
               "{}: field \"{}\"={} is out of the 32-bit integer range", src, key, json_excerpt(v));
  }
  try {
    return j[key].get<T>();
  } catch (const nlohmann::json::exception& e) {
    LLM0_FAIL("{}: field \"{}\" has the wrong type ({})", src, key, json_error_text(e));
  }
  return T{};
}

template <class T>
T get_or(const nlohmann::json& j, const char* key, T fallback, const std::string& src) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  return get_field<T>(j, key, src);
}

PositionKind parse_position(const std::string& s, const std::string& src) {
  if (s == "rope") return PositionKind::Rope;
  if (s == "learned" || s == "absolute") return PositionKind::Learned;
  if (s == "none") return PositionKind::None;
  LLM0_FAIL("{}: position_embedding_type=\"{}\" is not one of rope, learned, none", src, s);
  return PositionKind::Rope;
}

const char* architecture_name(const std::string& t) {
  return t == "qwen3" ? "Qwen3ForCausalLM" : t == "qwen2" ? "Qwen2ForCausalLM"
       : t == "qwen2_moe" ? "Qwen2MoeForCausalLM" : t == "qwen3_moe" ? "Qwen3MoeForCausalLM"
       : t == "qwen3_next" ? "Qwen3NextForCausalLM"
       : t == "mistral" ? "MistralForCausalLM" : t == "deepseek_v2" ? "DeepseekV2ForCausalLM"
       : t == "deepseek_v3" ? "DeepseekV3ForCausalLM" : "LlamaForCausalLM";
}

const char* position_name(PositionKind p) {
  return p == PositionKind::Rope ? "rope" : p == PositionKind::Learned ? "learned" : "none";
}

// The model families the engine runs; a config of any other model_type would silently build a
// Llama that is not that model, so it is refused with what is missing.
void check_model_type(const std::string& t, const std::string& src) {
  LLM0_CHECK(t != "gpt_oss",
             "{}: model_type \"gpt_oss\" is not supported: its clamped SwiGLU (swiglu_limit), "
             "biased mixture-of-experts router and YaRN rope_scaling are not implemented (its "
             "attention sinks and sliding layers are: use a llama-style config with "
             "\"attention_sinks\": true and \"layer_types\")", src);
  LLM0_CHECK(t == "llama" || t == "mistral" || t == "qwen2" || t == "qwen3" ||
                 t == "qwen2_moe" || t == "qwen3_moe" || t == "qwen3_next" || t == "deepseek_v2" ||
                 t == "deepseek_v3",
             "{}: model_type \"{}\" is not supported by the engine (it runs llama, mistral, qwen2, "
             "qwen3, qwen2_moe, qwen3_moe, qwen3_next and deepseek_v2/v3; `llm0 kv` still reads any "
             "config)",
             src, text_excerpt(t));
}

// A required MLA size: an integer > 0 (the message names the field).
int mla_size(const nlohmann::json& j, const char* key, const std::string& src) {
  const int v = get_field<int>(j, key, src);
  LLM0_CHECK(v > 0, "{}: {}={} must be > 0", src, key, v);
  return v;
}

MlaConfig read_mla(const nlohmann::json& j, const std::string& src) {
  MlaConfig m;
  m.q_lora_rank = get_or<int>(j, "q_lora_rank", 0, src);
  LLM0_CHECK(m.q_lora_rank >= 0, "{}: q_lora_rank={} must be >= 0 (null or 0: no query "
             "compression)", src, m.q_lora_rank);
  m.kv_lora_rank = mla_size(j, "kv_lora_rank", src);
  m.qk_nope_head_dim = mla_size(j, "qk_nope_head_dim", src);
  m.qk_rope_head_dim = mla_size(j, "qk_rope_head_dim", src);
  LLM0_CHECK(m.qk_rope_head_dim % 2 == 0, "{}: qk_rope_head_dim={} must be even (RoPE rotates "
             "pairs)", src, m.qk_rope_head_dim);
  m.v_head_dim = mla_size(j, "v_head_dim", src);
  // HF DeepseekV3Config.rope_interleave (default true); the rotate-half form is not implemented.
  LLM0_CHECK(get_or<bool>(j, "rope_interleave", true, src), "{}: rope_interleave=false (RoPE in "
             "the rotate-half layout) is not supported for MLA; llm0 uses DeepSeek's interleaved "
             "pairs", src);
  return m;
}

// Per-layer kinds by the ledger's rules (config/config_fields.h); W from "sliding_window".
std::vector<LayerConfig> resolve_layers(const nlohmann::json& j, int L, const std::string& src,
                                        int& window) {
  const ConfigFields f{j, src};
  const std::vector<std::string> types = resolve_layer_types(f, L);
  const std::vector<bool> moe = resolve_moe_layers(f, L);
  std::vector<LayerConfig> layers((size_t)L);
  window = 0;
  for (int il = 0; il < L; ++il) {
    if (moe[(size_t)il]) layers[(size_t)il].ffn = FfnKind::Moe;
    // resolve_layer_types accepts only the kind table's names (config/layer_kind.h).
    layers[(size_t)il].kind = *layer_kind_named(types[(size_t)il]);
    if (layers[(size_t)il].kind != LayerKind::SlidingAttention) continue;
    const int64_t W = f.positive("sliding_window");
    LLM0_CHECK(W <= 2147483647LL, "{}: sliding_window={} is out of range", src, W);
    window = (int)W;
    layers[(size_t)il].sliding_window = window;
  }
  return layers;
}

// A window wider than every position (query i sees keys i - W < j <= i, i < P) would make the
// sliding layers full attention under another name, so sliding_window > P is refused where some
// layer slides (W = P, also full attention, passes: a config may state its context as its
// window). A window that applies to no layer (Qwen2's published configs: 32768 or 131072 with
// use_sliding_window false) is not read, and passes.
void check_window_applies(const ModelConfig& c, const std::string& src) {
  int sliding = 0;
  for (const LayerConfig& l : c.layers) sliding += l.kind == LayerKind::SlidingAttention;
  LLM0_CHECK(c.sliding_window <= c.max_position_embeddings, "{}: sliding_window={} is larger "
             "than max_position_embeddings={}, so it never limits the attention of the {} "
             "sliding layer(s); give a window <= {} or make them full_attention", src,
             c.sliding_window, c.max_position_embeddings, sliding, c.max_position_embeddings);
}

}  // namespace

bool ModelConfig::has_linear_layers() const {
  for (const LayerConfig& l : layers)
    if (l.kind == LayerKind::LinearAttention) return true;
  return false;
}

LayerConfig ModelConfig::layer(int il) const {
  return layers.empty() ? LayerConfig{} : layers.at((size_t)il);
}

int ModelConfig::rotary_dim() const { return static_cast<int>(head_dim * partial_rotary_factor); }

ModelConfig ModelConfig::from_json(const nlohmann::json& j, const std::string& src) {
  LLM0_CHECK(j.is_object(), "{}: config must be a JSON object", src);
  ModelConfig c;
  c.model_type = get_or<std::string>(j, "model_type", "llama", src);
  check_model_type(c.model_type, src);
  c.vocab_size = get_field<int>(j, "vocab_size", src);
  c.hidden_size = get_field<int>(j, "hidden_size", src);
  c.intermediate_size = get_field<int>(j, "intermediate_size", src);
  c.num_hidden_layers = get_field<int>(j, "num_hidden_layers", src);
  c.num_attention_heads = get_field<int>(j, "num_attention_heads", src);
  c.num_key_value_heads = get_or<int>(j, "num_key_value_heads", c.num_attention_heads, src);
  LLM0_CHECK(c.num_attention_heads > 0, "{}: num_attention_heads must be > 0", src);
  c.head_dim = get_or<int>(j, "head_dim", c.hidden_size / c.num_attention_heads, src);
  c.max_position_embeddings = get_field<int>(j, "max_position_embeddings", src);
  const std::string norm_s = get_or<std::string>(j, "norm_type", "rmsnorm", src);
  LLM0_CHECK(norm_s == "rmsnorm" || norm_s == "layernorm",
             "{}: norm_type=\"{}\" is not rmsnorm or layernorm", src, norm_s);
  c.norm = norm_s == "layernorm" ? NormKind::LayerNorm : NormKind::RMSNorm;
  // No silent default for eps: RMSNorm needs rms_norm_eps, LayerNorm layer_norm_eps (or rms_norm_eps).
  if (c.norm == NormKind::LayerNorm && j.contains("layer_norm_eps"))
    c.rms_norm_eps = get_field<double>(j, "layer_norm_eps", src);
  else
    c.rms_norm_eps = get_field<double>(j, "rms_norm_eps", src);
  c.position = parse_position(get_or<std::string>(j, "position_embedding_type", "rope", src), src);
  if (c.position == PositionKind::Rope) c.rope_theta = get_field<double>(j, "rope_theta", src);
  c.partial_rotary_factor = get_or<double>(j, "partial_rotary_factor", 1.0, src);
  // RoPE scaling (llama3, yarn, linear, ...) changes every angle: refuse rather than ignore it.
  LLM0_CHECK(!j.contains("rope_scaling") || j["rope_scaling"].is_null(),
             "{}: rope_scaling={} is not supported (only plain RoPE)", src,
             j.contains("rope_scaling") ? json_excerpt(j["rope_scaling"], 200) : "");
  LLM0_CHECK(c.num_hidden_layers > 0, "{}: num_hidden_layers={} must be > 0", src,
             c.num_hidden_layers);
  c.source = src;
  c.layers = resolve_layers(j, c.num_hidden_layers, src, c.sliding_window);
  check_window_applies(c, src);
  bool any_moe = false;  // the expert fields are read (and required) when some layer has experts
  for (const LayerConfig& l : c.layers) any_moe |= l.ffn == FfnKind::Moe;
  if (any_moe) c.moe = MoeConfig::from_json(j, c.model_type, src);
  if (c.deepseek()) {
    c.mla = read_mla(j, src);
    c.head_dim = c.mla.qk_rope_head_dim;  // RoPE acts on the dr rotary dims (HF DeepseekV3Config)
    for (size_t i = 0; i < c.layers.size(); ++i) {
      LayerConfig& l = c.layers[i];
      LLM0_CHECK(l.kind == LayerKind::FullAttention, "{}: layer {} is a {} layer (layer_types "
                 "\"{}\"); multi-head latent attention (model_type {}) has full-attention layers "
                 "only", src, i, layer_kind_info(l.kind).display, layer_kind_info(l.kind).layer_type,
                 c.model_type);
      l.kind = LayerKind::LatentAttention;
    }
  }
  if (c.has_linear_layers()) c.linear = read_gated_deltanet(j, src);
  if (c.model_type == "qwen3_next") check_qwen3_next_experts_stated(j, src);
  c.attn_output_gate = get_or<bool>(j, "attn_output_gate", c.model_type == "qwen3_next", src);
  c.attention_sinks = get_or<bool>(j, "attention_sinks", false, src);
  c.tie_word_embeddings = get_or<bool>(j, "tie_word_embeddings", false, src);
  c.attention_bias = get_or<bool>(j, "attention_bias", false, src);
  c.mlp_bias = get_or<bool>(j, "mlp_bias", false, src);
  c.use_qk_norm = get_or<bool>(j, "use_qk_norm", c.model_type == "qwen3" ||
                               c.model_type == "qwen3_moe" || c.model_type == "qwen3_next", src);
  c.hidden_act = get_or<std::string>(j, "hidden_act", "silu", src);
  c.bos_token_id = get_or<int>(j, "bos_token_id", -1, src);
  c.eos_token_id = get_or<int>(j, "eos_token_id", -1, src);
  c.validate(src);
  return c;
}

void ModelConfig::validate(const std::string& src) const {
  LLM0_CHECK(vocab_size > 0, "{}: vocab_size={} must be > 0", src, vocab_size);
  LLM0_CHECK(hidden_size > 0, "{}: hidden_size={} must be > 0", src, hidden_size);
  LLM0_CHECK(intermediate_size > 0, "{}: intermediate_size={} must be > 0", src, intermediate_size);
  LLM0_CHECK(num_hidden_layers > 0, "{}: num_hidden_layers={} must be > 0", src, num_hidden_layers);
  LLM0_CHECK(num_key_value_heads > 0, "{}: num_key_value_heads={} must be > 0", src,
             num_key_value_heads);
  LLM0_CHECK(num_attention_heads % num_key_value_heads == 0,
             "{}: num_attention_heads={} not divisible by num_key_value_heads={}", src,
             num_attention_heads, num_key_value_heads);
  LLM0_CHECK(head_dim > 0, "{}: head_dim={} must be > 0", src, head_dim);
  LLM0_CHECK(max_position_embeddings > 0, "{}: max_position_embeddings={} must be > 0", src,
             max_position_embeddings);
  LLM0_CHECK(rms_norm_eps > 0, "{}: rms_norm_eps={} must be > 0", src, rms_norm_eps);
  if (mla.enabled()) {
    LLM0_CHECK(mla.q_lora_rank >= 0 && mla.qk_nope_head_dim > 0 && mla.qk_rope_head_dim > 0 &&
                   mla.v_head_dim > 0,
               "{}: q_lora_rank={} must be >= 0 (0 or null: no query compression) and "
               "qk_nope_head_dim={}, qk_rope_head_dim={}, v_head_dim={} > 0", src, mla.q_lora_rank,
               mla.qk_nope_head_dim, mla.qk_rope_head_dim, mla.v_head_dim);
    LLM0_CHECK(position == PositionKind::Rope && !use_qk_norm && !attention_sinks,
               "{}: multi-head latent attention needs RoPE, without QK-norm or sinks", src);
    LLM0_CHECK(head_dim == mla.qk_rope_head_dim, "{}: head_dim={} must equal qk_rope_head_dim={} "
               "for multi-head latent attention", src, head_dim, mla.qk_rope_head_dim);
  }
  if (has_linear_layers()) validate_gated_deltanet(linear, src);
  LLM0_CHECK(!(unit_offset_norms() && norm == NormKind::LayerNorm),
             "{}: qwen3_next uses RMSNorm (norm_type layernorm is not supported with it)", src);
  LLM0_CHECK(!(attn_output_gate && mla.enabled()),
             "{}: attn_output_gate is not supported with multi-head latent attention", src);
  LLM0_CHECK(!(has_linear_layers() && mla.enabled()),
             "{}: linear_attention layers cannot be mixed with multi-head latent attention", src);
  LLM0_CHECK(layers.empty() || (int)layers.size() == num_hidden_layers,
             "{}: {} per-layer entries but num_hidden_layers={}", src, layers.size(),
             num_hidden_layers);
  for (size_t il = 0; il < layers.size(); ++il)
    LLM0_CHECK(layers[il].kind == LayerKind::SlidingAttention ? layers[il].sliding_window > 0
                                                               : layers[il].sliding_window == 0,
               "{}: layer {}: sliding_window={} does not fit its kind (sliding layers need W > 0)",
               src, il, layers[il].sliding_window);
  moe.validate(src);
  bool any_moe = false;
  for (const LayerConfig& l : layers) any_moe |= l.ffn == FfnKind::Moe;
  LLM0_CHECK(!any_moe || (moe.enabled() && hidden_act == "silu" && !mlp_bias), "{}: "
             "mixture-of-experts layers need num_experts > 0 and SwiGLU experts (hidden_act "
             "\"silu\", no mlp_bias)", src);
  LLM0_CHECK(hidden_act == "silu" || hidden_act == "gelu" || hidden_act == "gelu_new" ||
                 hidden_act == "gelu_pytorch_tanh",
             "{}: hidden_act=\"{}\" is not silu, gelu, gelu_new or gelu_pytorch_tanh", src, hidden_act);
  if (position == PositionKind::Rope) {
    LLM0_CHECK(rope_theta > 0, "{}: rope_theta={} must be > 0", src, rope_theta);
    LLM0_CHECK(partial_rotary_factor > 0 && partial_rotary_factor <= 1,
               "{}: partial_rotary_factor={} must be in (0, 1]", src, partial_rotary_factor);
    LLM0_CHECK(rotary_dim() >= 2 && rotary_dim() <= 1024 && rotary_dim() % 2 == 0,
               "{}: rotary dims int(head_dim*partial_rotary_factor)={} must be even and in [2, 1024]"
               " (head_dim={}, partial_rotary_factor={})", src, rotary_dim(), head_dim,
               partial_rotary_factor);
  }
}

nlohmann::json ModelConfig::to_json() const {
  nlohmann::json j = {
      {"architectures", {architecture_name(model_type)}},
      {"model_type", model_type},
      {"vocab_size", vocab_size},
      {"hidden_size", hidden_size},
      {"intermediate_size", intermediate_size},
      {"num_hidden_layers", num_hidden_layers},
      {"num_attention_heads", num_attention_heads},
      {"num_key_value_heads", num_key_value_heads},
      {"head_dim", head_dim},
      {"max_position_embeddings", max_position_embeddings},
      {"rms_norm_eps", rms_norm_eps},
      {"tie_word_embeddings", tie_word_embeddings},
      {"attention_bias", attention_bias},
      {"mlp_bias", mlp_bias},
      {"use_qk_norm", use_qk_norm},
      {"hidden_act", hidden_act},
      {"position_embedding_type", position_name(position)},
      {"norm_type", norm == NormKind::LayerNorm ? "layernorm" : "rmsnorm"},
      {"torch_dtype", "float32"},
  };
  if (position == PositionKind::Rope) {
    j["rope_theta"] = rope_theta;
    j["partial_rotary_factor"] = partial_rotary_factor;
  }
  bool slides = false, all_full = true;
  nlohmann::json types = nlohmann::json::array();
  for (int il = 0; il < num_hidden_layers; ++il) {
    const LayerConfig l = layer(il);
    slides |= l.kind == LayerKind::SlidingAttention;
    types.push_back(layer_kind_info(l.kind).layer_type);
    all_full &= types.back() == "full_attention";
  }
  if (slides) j["sliding_window"] = sliding_window;
  if (!all_full) j["layer_types"] = types;
  if (has_linear_layers()) write_gated_deltanet(j, linear);
  if (attn_output_gate) j["attn_output_gate"] = true;
  if (model_type == "qwen3_next") j["num_experts"] = 0;  // dense MLP layers (HF default: 512)
  if (mla.enabled()) {
    j["q_lora_rank"] = mla.q_lora_rank > 0 ? nlohmann::json(mla.q_lora_rank) : nlohmann::json();
    j["kv_lora_rank"] = mla.kv_lora_rank, j["qk_nope_head_dim"] = mla.qk_nope_head_dim;
    j["qk_rope_head_dim"] = mla.qk_rope_head_dim, j["v_head_dim"] = mla.v_head_dim;
    if (!moe.enabled()) j["first_k_dense_replace"] = num_hidden_layers;  // every MLP layer dense
  }
  moe.to_json(j, model_type);
  if (attention_sinks) j["attention_sinks"] = true;
  if (bos_token_id >= 0) j["bos_token_id"] = bos_token_id;
  if (eos_token_id >= 0) j["eos_token_id"] = eos_token_id;
  return j;
}

ModelConfig ModelConfig::from_file(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "config file");
  return from_json(j, path);
}

}  // namespace llm0
