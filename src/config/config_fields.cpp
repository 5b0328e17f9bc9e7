// Checked config.json accessors and per-layer kind resolution (see config_fields.h).
// Layer-kind rules follow Hugging Face transformers' config classes: Qwen3NextConfig
// ("linear_attention" if (i + 1) % full_attention_interval else "full_attention"),
// Gemma3TextConfig ("sliding_attention" if (i + 1) % sliding_window_pattern else
// "full_attention"), Gemma2Config (same with pattern 2) and Qwen2Config ("sliding_attention" when
// use_sliding_window and i >= max_window_layers).
#include "config/config_fields.h"

#include <cmath>
#include <cstdint>

#include "config/layer_kind.h"
#include "core/check.h"
#include "core/json_parse.h"

namespace llm0 {

using nlohmann::json;

bool ConfigFields::has(std::string_view key) const {
  const auto it = config.find(key);
  return it != config.end() && !it->is_null();
}

namespace {

// The integer value of `key` (present), >= `min`; integral floats such as 4096.0 are accepted.
int64_t integer_at_least(const ConfigFields& f, std::string_view key, int64_t min) {
  const json& v = f.config.at(std::string(key));
  const char* what = min > 0 ? "a positive integer" : "an integer >= 0";
  const bool integral = v.is_number_integer() ||
      (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
       std::fabs(v.get<double>()) < 9.0e15);
  LLM0_CHECK(integral, "{}: field \"{}\" must be {}, got {}", f.source, key, what, json_excerpt(v));
  const int64_t n = v.is_number_integer() ? v.get<int64_t>()
                                          : static_cast<int64_t>(v.get<double>());
  LLM0_CHECK(n >= min && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX),
             "{}: field \"{}\" must be {}, got {}", f.source, key, what, json_excerpt(v));
  return n;
}

}  // namespace

int64_t ConfigFields::positive(std::string_view key) const {
  LLM0_CHECK(has(key), "{}: missing field \"{}\"", source, key);
  return integer_at_least(*this, key, 1);
}

int64_t ConfigFields::non_negative_or(std::string_view key, int64_t fallback) const {
  return has(key) ? integer_at_least(*this, key, 0) : fallback;
}

int64_t ConfigFields::positive_or(std::string_view key, int64_t fallback) const {
  return has(key) ? positive(key) : fallback;
}

bool ConfigFields::flag_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& v = config.at(std::string(key));
  LLM0_CHECK(v.is_boolean(), "{}: field \"{}\" must be true or false, got {}", source, key,
             json_excerpt(v));
  return v.get<bool>();
}

std::string ConfigFields::text_or_empty(std::string_view key) const {
  if (!has(key)) return "";
  const json& v = config.at(std::string(key));
  LLM0_CHECK(v.is_string(), "{}: field \"{}\" must be a string, got {}", source, key, json_excerpt(v));
  return v.get<std::string>();
}

const json& text_config_of(const json& config) {
  if (config.is_object() && !config.contains("num_hidden_layers") &&
      config.contains("text_config") && config.at("text_config").is_object())
    return config.at("text_config");
  return config;
}

namespace {

// layer_types given verbatim: check its length and names.
std::vector<std::string> explicit_layer_types(const ConfigFields& f, int64_t L) {
  const json& v = f.config.at("layer_types");
  LLM0_CHECK(v.is_array(), "{}: field \"layer_types\" must be an array of strings", f.source);
  LLM0_CHECK(static_cast<int64_t>(v.size()) == L,
             "{}: field \"layer_types\" has {} entries but num_hidden_layers={}", f.source,
             v.size(), L);
  std::vector<std::string> types;
  for (size_t il = 0; il < v.size(); ++il) {
    const json& t = v[il];
    LLM0_CHECK(t.is_string(), "{}: layer_types[{}] must be a string, got {}", f.source, il,
               json_excerpt(t));
    const std::string s = t.get<std::string>();
    LLM0_CHECK(layer_kind_named(s).has_value(), "{}: layer_types[{}] = \"{}\" is not one of {}",
               f.source, il, s, layer_type_names());
    types.push_back(s);
  }
  return types;
}

// Every `period`-th layer (1-based) is `every`, the others `other`.
std::vector<std::string> periodic(int64_t L, int64_t period, const char* every,
                                  const char* other) {
  std::vector<std::string> types;
  for (int64_t il = 0; il < L; ++il) types.push_back((il + 1) % period ? other : every);
  return types;
}

}  // namespace

std::vector<std::string> resolve_layer_types(const ConfigFields& f, int64_t L) {
  if (f.has("layer_types")) return explicit_layer_types(f, L);
  if (f.has("full_attention_interval"))
    return periodic(L, f.positive("full_attention_interval"), "full_attention",
                    "linear_attention");
  if (f.has("sliding_window") && f.has("sliding_window_pattern"))
    return periodic(L, f.positive("sliding_window_pattern"), "full_attention",
                    "sliding_attention");
  if (f.has("sliding_window") && f.text_or_empty("model_type") == "gemma2")
    return periodic(L, 2, "full_attention", "sliding_attention");
  std::vector<std::string> types(static_cast<size_t>(L), "full_attention");
  // Mistral (and other configs with sliding_window alone): every layer slides. Qwen2/3 gate it
  // with use_sliding_window (HF default false) and slide layers il >= max_window_layers (HF
  // default 28).
  const std::string t = f.text_or_empty("model_type");
  const bool qwen = t.rfind("qwen2", 0) == 0 || t.rfind("qwen3", 0) == 0;
  if (f.has("sliding_window") && f.flag_or("use_sliding_window", !qwen)) {
    const int64_t first = qwen || f.has("use_sliding_window")
                              ? f.non_negative_or("max_window_layers", qwen ? 28 : 0)
                              : 0;
    for (int64_t il = first; il < L; ++il) types[static_cast<size_t>(il)] = "sliding_attention";
  }
  return types;
}

uint64_t mul_checked(uint64_t a, uint64_t b, std::string_view what, std::string_view source) {
  uint64_t r = 0;
  LLM0_CHECK(!__builtin_mul_overflow(a, b, &r), "{}: {} overflows 64 bits ({} × {})", source,
             what, a, b);
  return r;
}

}  // namespace llm0
