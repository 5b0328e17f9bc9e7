// KV-cache ledger: bytes of inference state per token and at a context length, computed from a
// Hugging Face config.json (field names verbatim). Per layer kind:
//   MHA/GQA/MQA  2 × num_key_value_heads × head_dim numbers per token (MQA: arXiv:1911.02150,
//                GQA: arXiv:2305.13245);
//   MLA          kv_lora_rank + qk_rope_head_dim numbers per token shared by all heads
//                (DeepSeek-V2, arXiv:2405.04434: latent c_kv and k_rope);
//   sliding      as full attention, but the cache stops growing at `sliding_window` tokens;
//   linear       Gated DeltaNet (arXiv:2412.06464): a fixed FP32 state S [linear_num_value_heads,
//                linear_key_head_dim, linear_value_head_dim] plus a causal-conv window.
// For a config llm0 can build (ModelConfig::from_json accepts it), the bytes come from each
// layer's mixer (its CacheSpec, layers/mixer.h; mixers built without parameters): the formulas
// above must agree with them, and a kind without a formula here (llm0's extension kinds,
// config/layer_kind.h) is counted by its CacheSpec alone. Other configs (model types llm0 does
// not run, --as on MLA) are computed from the fields. `llm0 kv` prints these ledgers; the
// engine's caches hold exactly these byte counts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/attention_kind.h"
#include "core/element_type.h"

namespace llm0 {

/// A "what if" recomputation (`--as`): the attention layers recomputed as MHA, MQA or GQA with
/// `groups` KV heads. For an MLA model the per-head K/V sizes are qk_nope_head_dim +
/// qk_rope_head_dim and v_head_dim.
struct KvAs {
  AttentionKind kind = AttentionKind::kMHA;  ///< kMHA, kMQA or kGQA
  int64_t groups = 0;                        ///< KV heads for kGQA; unused otherwise
};

/// Parses "mha" | "mqa" | "gqa:G" (G ≥ 1). Throws llm0::Error on anything else.
KvAs parse_kv_as(std::string_view text);

/// What to compute. Defaults: context = max_position_embeddings of the config, BF16, as-is.
struct KvOptions {
  std::optional<int64_t> context;  ///< tokens; must be ≥ 0 (checked by kv_ledger)
  ElementType dtype = ElementType::BF16;  ///< element type of K/V and of the conv window (the
                                          ///< linear-attention state is always FP32)
  std::optional<KvAs> as;          ///< recompute the attention layers as another kind
};

/// One row of the ledger: all layers of one kind (a Hugging Face `layer_types` name).
struct KvLayerGroup {
  std::string layer_type;          ///< a layer_types name ("full_attention", "linear_attention", ...)
  int64_t layers = 0;              ///< how many layers of this kind
  std::optional<AttentionKind> attention;  ///< the attention layers' kind; empty for the kinds
                                           ///< summarised by their own name (linear attention,
                                           ///< shared-KV attention: config/layer_kind.h)
  uint64_t bytes_per_token_per_layer = 0;  ///< bytes; 0 for linear_attention
  int64_t window = 0;              ///< tokens held at most (sliding); 0 = grows with the context
  uint64_t state_bytes_per_layer = 0;  ///< bytes of the FP32 recurrent state (linear only)
  uint64_t conv_bytes_per_layer = 0;   ///< bytes of the causal-conv window (linear only)
  std::string formula;             ///< the per-layer formula with the config's numbers
};

/// The ledger of one model. All byte counts are bytes, all lengths tokens.
struct KvLedger {
  std::string source;         ///< where the config came from (file path or "config.json")
  std::string model_type;     ///< config's model_type ("" if absent)
  std::string attention;      ///< attention_label of the layers, e.g. "GQA", "hybrid: GQA + linear
                              ///< attention", "shared-KV attention", "mixed: shared-KV attention + GQA"
  AttentionKind attention_kind = AttentionKind::kMHA;  ///< kind of the attention layers' fields
  bool hybrid = false;        ///< true when some layers hold a fixed state only (linear attention)
  std::string as;             ///< "" or the --as kind ("MHA", "MQA", "GQA:4")
  ElementType dtype = ElementType::BF16;  ///< as KvOptions::dtype
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  ///< after --as; for MLA the config's value
  int64_t head_dim = 0;       ///< K head dim (MLA: qk_nope_head_dim + qk_rope_head_dim)
  int64_t v_head_dim = 0;     ///< V head dim (= head_dim except MLA)
  int64_t sliding_window = 0;  ///< tokens; 0 when no layer slides
  int64_t mtp_layers_not_counted = 0;  ///< DeepSeek-V3 num_nextn_predict_layers (not counted)
  std::vector<KvLayerGroup> groups;  ///< layers by kind, in order of first appearance

  uint64_t kv_bytes_per_token = 0;   ///< all growing layers, below any window
  int64_t context = 0;               ///< tokens
  uint64_t kv_bytes_at_context = 0;  ///< sliding layers capped at their window
  uint64_t linear_state_bytes = 0;   ///< all linear layers' FP32 recurrent state
  uint64_t conv_state_bytes = 0;     ///< all linear layers' causal-conv windows (in `dtype`)
  int64_t conv_window_positions = 0;  ///< past inputs held: linear_conv_kernel_dim - 1
  int64_t conv_channels = 0;         ///< 2·linear_num_key_heads·linear_key_head_dim + value dims
  uint64_t fixed_state_bytes = 0;    ///< linear_state_bytes + conv_state_bytes
  uint64_t total_bytes_at_context = 0;  ///< kv_bytes_at_context + fixed_state_bytes

  uint64_t mla_expanded_bytes_per_token = 0;  ///< MLA only: per-head K/V it stands for
  std::string mla_expanded_formula;           ///< MLA only
  std::vector<std::string> notes;             ///< conventions worth stating (MTP, conv, ...)
};

/// Most layers a config may state (num_hidden_layers): the ledger resolves each layer's kind, so an
/// absurd count would cost memory and time in proportion; real models have at most a few hundred.
constexpr int64_t kKvMaxLayers = 100000;

/// Computes the ledger of `config` (a Hugging Face config.json; a nested "text_config" is used
/// when the top level has no num_hidden_layers). `source` names the file in error messages.
/// Throws llm0::Error naming the field and `source` when a required field is missing, not a
/// positive integer, over kKvMaxLayers layers, or inconsistent (heads not divisible, layer_types of the wrong length, an
/// unknown layer type), when the context is negative, or when a byte count overflows 64 bits.
KvLedger kv_ledger(const nlohmann::json& config, const KvOptions& opt,
                   std::string_view source = "config.json");

/// Reads `path` (JSON) and returns kv_ledger(config, opt, path). Throws llm0::Error when the
/// file cannot be opened or parsed, naming the path.
KvLedger kv_ledger_from_file(const std::string& path, const KvOptions& opt);

/// Every number and formula of `ledger` as a JSON object (byte counts as unsigned integers).
nlohmann::json to_json(const KvLedger& ledger);

}  // namespace llm0
