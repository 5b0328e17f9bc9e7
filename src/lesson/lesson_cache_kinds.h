// `llm0 lesson cache-kinds`: the attention chapter's lineage MHA → GQA → MQA → MLA run by the
// engine at one width. Four tiny random models (hidden C, H = 4 heads of d_h = C/4, 2 layers) —
// MHA (4 KV heads), GQA (2), MQA (1) and MLA in DeepSeek-V2's proportions (kv_lora_rank 4·d_h,
// qk_rope_head_dim d_h/2, qk_nope_head_dim = v_head_dim = d_h; arXiv:2405.04434 §2.1) — each
// prefilled with n tokens and then decoding: cache bytes per token read from the caches after
// the prefill (ModelCache::bytes_in_use() / n), attention multiply-adds and time per decoded
// token from the engine's counters, MLA in both decode forms (absorbed, expanded). Beside them,
// `llm0 kv`'s figures for DeepSeek-LLM-67B and DeepSeek-V2 (the course's −82% comparison).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::lesson {

/// What the lesson runs.
struct CacheKindOptions {
  int hidden_size = 64;                      ///< C, a positive multiple of 8 (d_h = C/4 even)
  std::vector<int> contexts{256, 1024, 4096};  ///< prefill lengths n
  int decode_tokens = 16;                    ///< decoded tokens per context (timed, counted)
  std::string reference_dir;                 ///< folder with deepseek-llm-67b.json, deepseek-v2.json
};

/// One model kind at one context.
struct CacheKindRow {
  std::string kind;                  ///< "MHA", "GQA", "MQA", "MLA absorbed", "MLA expanded"
  int context = 0;
  double cache_bytes_per_token = 0;  ///< measured after the prefill, float32
  double decode_macs_per_token = 0;  ///< attention multiply-adds per decoded token
  double decode_ms_per_token = 0;
};

/// One public model from `llm0 kv` (BF16, as the checkpoints ship).
struct CacheKindLedger {
  std::string model, attention;      ///< file stem, the ledger's label ("GQA", "MLA")
  uint64_t bytes_per_token = 0;
};

struct CacheKindsLesson {
  int hidden_size = 0, heads = 0, head_dim = 0, layers = 0, kv_lora_rank = 0, rope_dim = 0;
  std::vector<CacheKindRow> rows;        ///< kinds × contexts
  std::vector<CacheKindLedger> ledger;   ///< DeepSeek-LLM-67B, DeepSeek-V2
  double mla_saving = 0;                 ///< 1 − V2 / 67B bytes per token
};

/// Runs the lesson. Throws llm0::Error naming the option for a bad hidden size, context or
/// token count, or when a reference config cannot be read.
CacheKindsLesson run_cache_kinds_lesson(const CacheKindOptions& opt);
/// The text tables.
std::string cache_kinds_text(const CacheKindsLesson& l);
/// The lesson as JSON (field names as in the structs).
nlohmann::json to_json(const CacheKindsLesson& l);
/// Log-log chart of attention multiply-adds per decoded token against the context, per kind.
std::string cache_kinds_svg(const CacheKindsLesson& l);

}  // namespace llm0::lesson
