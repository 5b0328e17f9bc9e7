// `llm0 lesson attention`: what one causal attention layer computes on the teaching world,
// measured with the engine's own ops (linear_forward for x W, attention_forward for
// softmax(Q Kᵀ/√d_h) V; Vaswani et al., arXiv:1706.03762, eq. 1). Attention weights are read
// out of the engine's op by attending over one-hot value rows (out = Σ_j w_j e_j = w); the
// attention-sink variant (gpt-oss; Xiao et al., arXiv:2309.17453) runs through the same kernel
// with the heads' sink logits: softmax over [scores, sink] with the sink column dropped, so the
// token weights sum to 1 − w_sink, w_sink = 1 / (1 + exp(lse − sink)).
// All matrices are row-major, outermost first.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_world.h"
#include "lesson/lesson_world_cache.h"

namespace llm0::lesson {

/// One head's results on the sentence (T tokens, d_h = d_head).
struct HeadLesson {
  std::string name;
  std::vector<double> queries, keys, values;  ///< q, k, v rows, each [T, d_h]
  std::vector<double> scores;   ///< [T, T] = q_t·k_j/√d_h for every pair (the mask not applied)
  std::vector<double> weights;                ///< [T, T]; row t sums to 1, zero above the diagonal
  std::vector<double> weights_unmasked;       ///< [T, T]; softmax over all T keys (no causal mask)
  std::vector<double> outputs;                ///< [T, d_h]; row t = Σ_{j≤t} w_tj v_j
  bool outputs_inside_v_range = false;  ///< every output inside [min_j v_j, max_j v_j] per dim
  double max_outside = 0;               ///< largest distance outside that range (0 when inside)
  std::optional<double> sink_logit;     ///< when the head has a sink
  std::vector<double> sink_weight;      ///< [T] weight given to "nothing" (sink heads only)
  std::vector<double> weights_with_sink;  ///< [T, T] token weights with the sink (sum 1 − sink)
};

/// The swap test: exchange two tokens and compare one row's retrieved K and V.
struct SwapLesson {
  WorldSwap swap;                     ///< positions and head
  std::vector<std::string> tokens;    ///< the swapped sentence
  double cos_k = 0, cos_v = 0;        ///< cosine of the two swapped tokens' k, and of their v
  std::vector<double> weights_before, weights_after;  ///< the query row's weights [T]
  std::vector<double> k_before, k_after;  ///< Σ_j w_j k_j of the query row [d_h]
  std::vector<double> v_before, v_after;  ///< Σ_j w_j v_j of the query row [d_h]
  double delta_k = 0, delta_v = 0;    ///< Euclidean norm of the change
  double ratio = 0;                   ///< delta_v / delta_k (infinity when delta_k = 0)
};

/// Everything `llm0 lesson attention` prints.
struct AttentionLesson {
  std::string source, description;
  std::vector<std::string> tokens;
  int d_model = 0, d_head = 0;
  std::vector<HeadLesson> heads;
  std::vector<double> embedding_cosines;  ///< [T, T] = cos(x_t, x_j) of the raw embeddings
  std::vector<HeadLesson> split_heads;    ///< the world's "split_heads" variant; empty without
  std::optional<int> sink_row;            ///< the world's "sink_row" position
  std::vector<double> projected;  ///< [T, d_model] = concat_h(O_h) W_O; empty without W_O
  uint64_t qk_scores = 0;         ///< q·k scores the engine's attention op computed (one pass)
  std::optional<SwapLesson> swap;
  WorldCacheCheck cache_check;    ///< outputs with the KV cache vs one full pass (lesson 8)
};

/// Runs the lesson on `world` with the engine's ops. Throws llm0::Error only for an invalid
/// world (which load_world already rejects).
AttentionLesson run_attention_lesson(const TeachingWorld& world);

/// cos(a, b) = a·b / (|a| |b|); 0 when either vector is zero.
double cosine(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace llm0::lesson
