// Cache vs recompute on the teaching world (lesson 8's "the same?" panel): every head's attention
// output of each position computed once over the whole sentence (one causal pass, what a decoder
// without a cache recomputes) and incrementally (token t arrives alone, its k and v are appended to
// a cache, q_t attends over the cache), both with the engine's ops (linear_forward,
// attention_forward), and their largest |difference|. Pope et al. 2022, "Efficiently Scaling
// Transformer Inference" §2 (the KV cache); the world's row-vector convention (lesson_world.h).
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_world.h"

namespace llm0::lesson {

/// Both ways' outputs. Rows are positions; a row holds the H heads' outputs side by side.
struct WorldCacheCheck {
  int heads = 0, d_head = 0;
  std::vector<double> full;    ///< [T, H·d_head]: one pass over all T tokens (causal mask)
  std::vector<double> cached;  ///< [T, H·d_head]: row t from q_t over the cached k, v of 0..t
  double max_abs_diff = 0;     ///< max over all entries of |full − cached|
  uint64_t kv_full = 0, kv_cached = 0;  ///< K/V vectors projected per head (T each way)
  uint64_t qk_full = 0, qk_cached = 0;  ///< q·k scores the engine's op computed, all heads
};

/// Runs both ways on `world` (no sink logits: the plain softmax). Throws llm0::Error only for an
/// invalid world, which load_world already rejects.
WorldCacheCheck world_cache_check(const TeachingWorld& world);

/// {"heads", "d_head", "full": [[…] per position], "cached": […], "max_abs_diff", "kv_full",
/// "kv_cached", "qk_full", "qk_cached"}.
nlohmann::json to_json(const WorldCacheCheck& check);

}  // namespace llm0::lesson
