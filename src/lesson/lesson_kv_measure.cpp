// The ledger checked on a small engine model of the same kind (lesson_kv_measure.h).
#include "lesson/lesson_kv_measure.h"

#include <algorithm>
#include <vector>

#include "config/attention_kind.h"
#include "config/config_fields.h"
#include "core/check.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_kv_bytes.h"
#include "lesson/lesson_kv_cache.h"
#include "model/init.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

// Sets `key` to `value` where the config states it as a positive number.
void shrink(json& c, const char* key, int64_t value) {
  if (c.contains(key) && c[key].is_number() && c[key].get<double>() > 0) c[key] = value;
}

int64_t positive(const json& c, const char* key, int64_t fallback) {
  return c.contains(key) && c[key].is_number_integer() && c[key].get<int64_t>() > 0 ? c[key].get<int64_t>()
                                                                                    : fallback;
}

// Past kMeasureMaxLayers layers the cache bytes scale by layer count: one layer of each distinct
// kind, in order of first appearance, stated as explicit layer_types (resolve_layer_types takes
// them before any pattern field), measures what each kind holds.
void one_layer_per_kind(json& c) {
  const int64_t L = positive(c, "num_hidden_layers", 0);
  if (L <= kMeasureMaxLayers) return;
  LLM0_CHECK(L <= kKvMaxLayers, "the config: field \"num_hidden_layers\" is {}; at most {} layers "
             "are measured", L, kKvMaxLayers);
  std::vector<std::string> kinds;
  for (const std::string& t : resolve_layer_types(ConfigFields{c, "the config"}, L))
    if (std::find(kinds.begin(), kinds.end(), t) == kinds.end()) kinds.push_back(t);
  c["num_hidden_layers"] = static_cast<int64_t>(kinds.size());
  c["layer_types"] = kinds;
  c.erase("max_window_layers");  // a Qwen sliding start past the new count would be out of range
}

}  // namespace

json small_config_of_kind(const json& config) {
  json c = !config.contains("num_hidden_layers") && config.contains("text_config") ? config["text_config"] : config;
  LLM0_CHECK(c.is_object(), "the config is not a JSON object");
  const int64_t H = positive(c, "num_attention_heads", 1), Hkv = positive(c, "num_key_value_heads", H);
  c["vocab_size"] = 256, c["hidden_size"] = 64, c["max_position_embeddings"] = 64;
  c["num_attention_heads"] = 4;
  if (c.contains("num_key_value_heads")) {  // MHA stays MHA, MQA stays MQA, GQA keeps 2 groups
    const AttentionKind kind = attention_kind_of(H, Hkv);
    c["num_key_value_heads"] = kind == AttentionKind::kMHA ? 4 : kind == AttentionKind::kMQA ? 1 : 2;
  }
  c["head_dim"] = 16;
  c["intermediate_size"] = 32;  // required by the engine even where every layer has experts
  c.erase("rope_scaling");      // positions do not change the bytes; the engine runs plain RoPE
  for (const char* k : {"moe_intermediate_size", "shared_expert_intermediate_size"}) shrink(c, k, 32);
  shrink(c, "q_lora_rank", 32), shrink(c, "kv_lora_rank", 32), shrink(c, "qk_rope_head_dim", 8);
  shrink(c, "qk_nope_head_dim", 16), shrink(c, "v_head_dim", 16);
  if (!c.contains("num_experts") && !c.contains("n_routed_experts"))
    c["num_experts"] = 0;  // no expert count stated: dense MLP layers (qwen3_next asks for it)
  shrink(c, "num_experts", 4), shrink(c, "n_routed_experts", 4), shrink(c, "n_group", 1);
  shrink(c, "topk_group", 1);
  if (c.contains("num_experts_per_tok")) c["num_experts_per_tok"] = std::min<int64_t>(positive(c, "num_experts_per_tok", 1), 2);
  if (c.contains("n_shared_experts")) c["n_shared_experts"] = std::min<int64_t>(positive(c, "n_shared_experts", 0), 1);
  const int64_t lk = positive(c, "linear_num_key_heads", 1), lv = positive(c, "linear_num_value_heads", lk);
  shrink(c, "linear_num_key_heads", 2), shrink(c, "linear_num_value_heads", 2 * std::max<int64_t>(lv / lk, 1));
  shrink(c, "linear_key_head_dim", 16), shrink(c, "linear_value_head_dim", 16);
  shrink(c, "sliding_window", 8), shrink(c, "linear_conv_kernel_dim", 4);
  // transformers' LlamaConfig defaults for fields published configs may omit (Llama-2-7b-hf states
  // no rope_theta): configuration_llama.py, rope_theta=10000.0, rms_norm_eps=1e-6.
  if (!c.contains("rope_theta")) c["rope_theta"] = 10000.0;
  if (!c.contains("rms_norm_eps") && !c.contains("layer_norm_eps")) c["rms_norm_eps"] = 1e-6;
  one_layer_per_kind(c);
  return c;
}

json measure_kv_small_model(const json& config) {
  const json small = small_config_of_kind(config);
  try {
    Model model(ModelConfig::from_json(small, "the small config"));
    init_weights(model, 1);
    const std::vector<int> tokens = lesson_prompt(kKvMeasureTokens, model.config().vocab_size);
    json rows = json::array();
    for (const KvBytesRow& r : measure_kv_bytes(model, tokens)) {
      KvOptions opt;
      opt.dtype = parse_element_type(r.dtype), opt.context = r.length;
      const KvLedger l = kv_ledger(small, opt, "the small config");
      rows.push_back({{"dtype", r.dtype}, {"engine_bytes", r.engine_bytes},
                      {"ledger_bytes", l.total_bytes_at_context},
                      {"ledger_bytes_per_token", l.kv_bytes_per_token}});
    }
    return {{"config", small}, {"tokens", kKvMeasureTokens}, {"rows", rows}};
  } catch (const Error& e) {
    return {{"config", small}, {"error", e.what()}};
  }
}

}  // namespace llm0::lesson
