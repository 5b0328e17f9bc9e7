// The kv-cache lesson's byte count: the engine's cache (ModelCache::bytes_in_use) after the
// lesson's sequence, measured in float32 and in bfloat16 (`--kv-dtype`), next to what the ledger
// (`llm0 kv --dtype fp32 / bf16`) computes from the config for the same length.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace llm0::lesson {

/// One cache dtype: bytes measured in the engine and computed by the ledger.
struct KvBytesRow {
  std::string dtype;          ///< "f32" or "bf16"
  int length = 0;             ///< tokens cached
  uint64_t engine_bytes = 0;  ///< ModelCache::bytes_in_use() after forwarding them
  uint64_t ledger_bytes = 0;  ///< kv_ledger(config, dtype, context = length).kv_bytes_at_context
};

/// Forwards `tokens` through a fresh cache of each dtype (the model's own setting is restored).
/// Throws llm0::Error what forward_cached throws (ids, context).
std::vector<KvBytesRow> measure_kv_bytes(Model& model, const std::vector<int>& tokens);

/// "Cache bytes after n tokens: f32 ... (ledger ...), bf16 ..." lines.
std::string kv_bytes_text(const std::vector<KvBytesRow>& rows);

/// [{dtype, length, engine_bytes, ledger_bytes}, ...]
nlohmann::json kv_bytes_json(const std::vector<KvBytesRow>& rows);

}  // namespace llm0::lesson
