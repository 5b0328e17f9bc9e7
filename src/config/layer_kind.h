// The token-mixer kinds of a layer, in one table: each kind's LayerKind value, its config.json
// `layer_types` spelling (Hugging Face names: transformers' Qwen3NextConfig, Gemma3TextConfig,
// ...; llm0 extensions marked) and the name messages and summaries print. The config parser
// (names accepted, the error listing them, serialisation back to JSON), the KV ledger's summary
// and the GGUF export's refusal read this table, so a new kind is one enum value and one row
// here, plus its class in layers/mixer_factory.cpp (docs/ARCHITECTURE.md "Adding a token-mixer
// kind").
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace llm0 {

/// Which sequence mixer a layer has. LatentAttention is DeepSeek's multi-head latent attention
/// (every layer of model_type deepseek_v2/v3; layers/mla.h); SharedKvAttention is llm0's
/// extension: one row per KV head serving as K and V (layers/shared_kv_attention.h).
enum class LayerKind {
  FullAttention, SlidingAttention, LatentAttention, LinearAttention, SharedKvAttention
};

/// One row of the kind table.
struct LayerKindInfo {
  LayerKind kind;
  const char* layer_type;  ///< the config.json `layer_types` spelling
  const char* display;     ///< the name messages and summaries print ("shared-KV attention")
  bool extension;          ///< an llm0 extension name (not a Hugging Face one)
  bool by_model_type;      ///< not chosen by `layer_types`: the model_type makes the layers so
  bool in_llama_cpp;       ///< some llama.cpp architecture has it (GGUF export can write it)
};

/// The table, in LayerKind order.
inline constexpr LayerKindInfo kLayerKinds[] = {
    {LayerKind::FullAttention, "full_attention", "full attention", false, false, true},
    {LayerKind::SlidingAttention, "sliding_attention", "sliding-window attention", false, false, true},
    // DeepSeek's layers are full_attention in layer_types terms; model_type deepseek_v2/v3
    // makes every one latent (config/config.cpp), so this row is never looked up by name.
    {LayerKind::LatentAttention, "full_attention", "multi-head latent attention", false, true, true},
    {LayerKind::LinearAttention, "linear_attention", "linear attention", false, false, true},
    {LayerKind::SharedKvAttention, "shared_kv_attention", "shared-KV attention", true, false, false},
};

namespace detail {
constexpr bool kinds_in_order() {
  for (size_t i = 0; i < std::size(kLayerKinds); ++i)
    if (kLayerKinds[i].kind != static_cast<LayerKind>(i)) return false;
  return true;
}
}  // namespace detail
static_assert(detail::kinds_in_order(), "kLayerKinds: one row per LayerKind, in enum order");

/// The row of `kind`.
const LayerKindInfo& layer_kind_info(LayerKind kind);
/// The kind a `layer_types` name selects (rows with by_model_type are skipped); nullopt for a
/// name the table does not list.
std::optional<LayerKind> layer_kind_named(std::string_view layer_type);
/// Every name `layer_types` accepts, for error messages: "full_attention, sliding_attention,
/// linear_attention, shared_kv_attention (llm0 extension)".
std::string layer_type_names();

}  // namespace llm0
