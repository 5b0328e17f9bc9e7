// Reading config.json fields (for ModelConfig and the KV ledger alike), with errors that name
// the field and the file, and resolving each layer's kind (`layer_types` names) from the several
// conventions configs use: layer_types, full_attention_interval (Qwen3-Next),
// sliding_window_pattern (Gemma 3, Cohere 2), Gemma 2's alternation, and sliding_window with
// use_sliding_window / max_window_layers (Mistral, Qwen2/3).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0 {

/// A config.json seen through typed, checked accessors. `config` must outlive this object.
struct ConfigFields {
  const nlohmann::json& config;  ///< the config object (already the text_config when nested)
  std::string_view source;     ///< file named in errors

  /// True when `key` is present and not null.
  bool has(std::string_view key) const;
  /// Required integer > 0. Throws llm0::Error "missing field" / "must be a positive integer".
  int64_t positive(std::string_view key) const;
  /// Integer > 0 when present (and not null), else `fallback`. Throws when present but invalid.
  int64_t positive_or(std::string_view key, int64_t fallback) const;
  /// Integer >= 0 when present (and not null), else `fallback`. Throws when present but invalid.
  int64_t non_negative_or(std::string_view key, int64_t fallback) const;
  /// Boolean when present (and not null), else `fallback`. Throws when present but not a bool.
  bool flag_or(std::string_view key, bool fallback) const;
  /// String when present (and not null), else "". Throws when present but not a string.
  std::string text_or_empty(std::string_view key) const;
};

/// The object whose fields describe the language model: `config` itself, or its "text_config"
/// when the top level lacks num_hidden_layers (multimodal configs).
const nlohmann::json& text_config_of(const nlohmann::json& config);

/// One `layer_types` name per layer (a name of the kind table, config/layer_kind.h), of length
/// num_hidden_layers. Throws llm0::Error when layer_types has the
/// wrong length or an unknown name, or when an interval/pattern field is invalid.
std::vector<std::string> resolve_layer_types(const ConfigFields& f, int64_t num_hidden_layers);

/// a × b, throwing llm0::Error ("`what` overflows 64 bits", naming `source`) on overflow.
uint64_t mul_checked(uint64_t a, uint64_t b, std::string_view what, std::string_view source);

}  // namespace llm0
