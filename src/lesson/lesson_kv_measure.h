// `llm0 kv FILE --measure`: the ledger's bytes checked by the engine on a small model of the same
// kind. The config is scaled down (widths, heads, experts, latent ranks, linear heads, window and
// vocabulary made small, rope_scaling dropped; the layer count, the layer kinds and the attention
// kind — MHA, GQA, MQA or MLA — kept), initialised with random weights, and 16 tokens are forwarded through the
// engine's cache in float32 and bfloat16; ModelCache::bytes_in_use is set beside the ledger of
// the same small config (total_bytes_at_context: per-token bytes × 16, windows capped, plus any
// fixed recurrent state). The two must be equal (DESIGN.md "LayerCache::bytes_in_use() = llm0 kv").
#pragma once
#include <nlohmann/json.hpp>

namespace llm0::lesson {

/// Tokens forwarded by the measurement (more than the scaled window of 8, so windows cap).
constexpr int kKvMeasureTokens = 16;

/// The small config of the same kind as `config` (a Hugging Face config.json; a nested
/// "text_config" is used when the top level has no num_hidden_layers). Fields it does not know
/// are copied unchanged.
nlohmann::json small_config_of_kind(const nlohmann::json& config);

/// {"config": small, "tokens": 16, "rows": [{"dtype", "engine_bytes", "ledger_bytes",
/// "ledger_bytes_per_token"}, ...] for f32 and bf16}; or {"config": small, "error": message} when the
/// engine cannot build that kind (the ledger alone is then all there is).
nlohmann::json measure_kv_small_model(const nlohmann::json& config);

}  // namespace llm0::lesson
