// `llm0 lesson hybrid-state`: the hybrid's ledger run for real. A model from a config (random
// weights, init_weights; max_position_embeddings raised to the longest context) is prefilled
// with n tokens for each context n, then decodes G tokens: the engine's caches report the bytes
// held by the KV layers (full / sliding attention: growing ∝ n) and by the recurrent state of the
// linear-attention layers (S and the conv window: constant), and the decode time per token is
// measured. Beside it, `llm0 kv` of an anchor config (the course's 64 KiB/token + 144 MiB).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::lesson {

struct HybridStateOptions {
  std::string config;                              ///< model config.json
  std::string anchor;                              ///< config for the `llm0 kv` column ("" = none)
  std::vector<int> contexts{256, 1024, 4096, 16384};  ///< prefill lengths n
  int decode_tokens = 8;                           ///< decoded tokens per context (timed)
  uint64_t seed = 1;
};

struct HybridStateRow {
  int context = 0;
  uint64_t kv_bytes = 0;     ///< held by the attention layers' caches after the prefill (F32)
  uint64_t state_bytes = 0;  ///< held by the linear layers' recurrent states (F32)
  double decode_ms_per_token = 0;
};

struct HybridStateLesson {
  std::string config;
  int layers = 0, linear_layers = 0;
  std::vector<HybridStateRow> rows;
  std::string anchor;                    ///< anchor config path ("" = none)
  uint64_t anchor_kv_bytes_per_token = 0, anchor_state_bytes = 0;  ///< `llm0 kv`, BF16 KV
};

/// Runs the lesson. Throws llm0::Error naming the option for an empty or out-of-range context
/// list or token count, or what reading the configs throws.
HybridStateLesson run_hybrid_state_lesson(const HybridStateOptions& opt);
/// The text table.
std::string hybrid_state_text(const HybridStateLesson& l);
/// The lesson as JSON (field names as in the structs).
nlohmann::json to_json(const HybridStateLesson& l);

}  // namespace llm0::lesson
