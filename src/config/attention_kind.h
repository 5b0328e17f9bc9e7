// The attention label: how attention layers share K/V, and the one line summing up a model's
// layers that `llm0 kv` (text and JSON, so the explorer's ledger answers), the lessons and the
// pages print. MHA: each query head has its own K and V; GQA (arXiv:2305.13245): each group of
// query heads shares one; MQA (arXiv:1911.02150): one K and V for all heads; MLA (DeepSeek-V2,
// arXiv:2405.04434): a low-rank latent shared by all heads. A model's line joins its layer kinds:
// "GQA", "hybrid: GQA + linear attention", "mixed: shared-KV attention + GQA",
// "GQA, sliding window 4096", "GQA (recomputed as MQA)".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm0 {

/// How the attention layers share K/V.
enum class AttentionKind { kMHA, kGQA, kMQA, kMLA };

/// MLA when `latent` (the config states kv_lora_rank); otherwise from the head counts: MHA when
/// num_key_value_heads >= num_attention_heads (more KV heads than query heads is refused where
/// configs are checked), MQA when it is 1, GQA in between.
AttentionKind attention_kind_of(int64_t num_attention_heads, int64_t num_key_value_heads,
                                bool latent = false);

/// "MHA", "GQA", "MQA" or "MLA".
const char* attention_kind_name(AttentionKind kind);

/// attention_kind_name, with the group count for GQA: "MHA", "MQA", "GQA:4" (`llm0 kv --as`).
std::string attention_kind_label(AttentionKind kind, int64_t groups);

/// Some layers of a model, for attention_label: their name (attention_kind_name for attention
/// whose K/V the config's head fields describe, else the layer kind's display name,
/// config/layer_kind.h, e.g. "linear attention") and whether their cache grows with the context
/// (false: a fixed-size state).
struct AttentionPart {
  std::string name;
  bool grows = true;
};

/// A model's label: the growing parts' names joined by " + " ("mixed: " before two or more), then
/// the fixed ones ("hybrid: " before all when there are both), each name once, in the order of
/// `parts`; ", sliding window W" when `sliding_window` W > 0; " (recomputed as AS)" when
/// `recomputed_as` is not empty.
std::string attention_label(const std::vector<AttentionPart>& parts, int64_t sliding_window,
                            std::string_view recomputed_as);

}  // namespace llm0
