// Lesson 5's aside "is retrieving K always wrong?" answered by the engine: DeepSeek-V4's
// compressed attention lets one vector serve as both K and V (report §2.3.3), and llm0's
// shared_kv_attention layer (layers/shared_kv_attention.h) does the same. Two models that differ
// only in that choice — the GQA preset and its shared-KV twin with the same KV heads and
// head_dim — are built with random weights, a prompt is forwarded through each one's cache, and
// the cache bytes are read from the caches (ModelCache::bytes_in_use, F32 and BF16) beside the
// ledger (`llm0 kv`); the parameter counts come from the models' stores.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_kv_bytes.h"

namespace llm0::lesson {

/// One model of the comparison.
struct SharedKvSide {
  std::string config;            ///< the config file's name (no folders)
  std::string layer_type;        ///< layer 0's layer_types name
  uint64_t parameters = 0;       ///< numbers in the model's parameter store
  std::vector<KvBytesRow> bytes; ///< f32 and bf16: engine and ledger after `tokens` tokens
  double bytes_per_token_per_layer = 0;  ///< engine, f32: bytes / (tokens · layers)
};

struct SharedKvAnswer {
  int layers = 0, kv_heads = 0, head_dim = 0, tokens = 0;
  SharedKvSide gqa, shared;
  double ratio = 0;  ///< shared / GQA cache bytes (engine, f32)
};

/// Builds both models (init_weights seed 1), forwards `tokens` prompt tokens through each. An
/// empty path means the shipped preset: configs/llm0-small.json (GQA) and
/// configs/llm0-shared-kv.json (its shared-KV twin). Throws llm0::Error naming the files when
/// they differ in layers, KV heads or head_dim, or when a file cannot be read.
SharedKvAnswer run_shared_kv_answer(std::string gqa_config = "", std::string shared_config = "",
                                    int tokens = 16);
/// The answer as text (the aside, then the measured lines).
std::string shared_kv_answer_text(const SharedKvAnswer& a);
/// The answer as JSON (field names as in the structs).
nlohmann::json to_json(const SharedKvAnswer& a);

}  // namespace llm0::lesson
