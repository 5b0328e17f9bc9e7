// `llm0 lesson kv-cache`: real greedy generation on a small model, run twice — without a cache
// (a fresh cache and the whole sequence forwarded every step) and with one (prefill the P prompt
// tokens, then feed each generated token once; the last generated token is never fed back) —
// comparing the engine's own work counters (InferContext::layer_counters: K/V vectors projected, q·k
// scores that entered a softmax), the logits and the greedy tokens. Then the same pair of runs
// for growing total lengths n = P + G − 1, with the growth order fitted as the least-squares
// slope of log(count) against log(n): K/V ∝ n² without a cache vs n with one, scores ∝ n³ vs n².
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_kv_bytes.h"
#include "model/model.h"

namespace llm0::lesson {

/// One generation step (step 0 = the prefill) of one run.
struct KvStep {
  int tokens_fed = 0;            ///< tokens forwarded this step
  uint64_t kv_per_layer = 0;     ///< K/V vectors projected by the counted layer this step (layer 0, or the first layer with a KV cache in a hybrid)
  uint64_t kv_total = 0;         ///< summed over layers
  uint64_t qk_per_layer = 0;     ///< q·k scores of the counted layer this step (all heads)
  uint64_t qk_total = 0;         ///< summed over layers
  int token = 0;                 ///< greedy (argmax, lowest id on ties) token produced
};

/// One run (with or without the cache).
struct KvRun {
  bool cached = false;
  std::vector<KvStep> steps;     ///< G steps
  uint64_t kv_per_layer = 0, kv_total = 0, qk_per_layer = 0, qk_total = 0;  ///< Σ over steps
  std::vector<int> tokens;       ///< the G generated tokens
  std::vector<float> logits;     ///< [G, vocab_size] logits that chose each token
};

/// One row of the growth table: both runs for total length n = P + G − 1 (the counted layer's counts).
struct KvGrowthRow {
  int length = 0;
  uint64_t kv_no_cache = 0, kv_cache = 0, qk_no_cache = 0, qk_cache = 0;
};

/// Least-squares slopes of log(count) vs log(length) over the growth table.
struct KvGrowthFit {
  double kv_no_cache = 0, kv_cache = 0, qk_no_cache = 0, qk_cache = 0;
};

/// What the lesson runs. Lengths are tokens.
struct KvLessonOptions {
  int prompt_len = 2;   ///< P ≥ 1
  int generate = 3;     ///< G ≥ 1 generated tokens
  int up_to = 256;      ///< L: longest total length in the growth table (> P); 0 = no table
};

/// Everything `llm0 lesson kv-cache` prints.
struct KvCacheLesson {
  std::string model;                 ///< where the model came from
  int num_hidden_layers = 0, num_attention_heads = 0, num_key_value_heads = 0, vocab_size = 0;
  int sliding_window = 0;            ///< the counted layer's window W (0 = full attention)
  int prompt_len = 0, generate = 0;
  std::vector<int> prompt;           ///< the P prompt token ids
  KvRun without_cache, with_cache;
  double max_logit_diff = 0;         ///< max |logit_without − logit_with| over all steps
  bool same_tokens = false;          ///< greedy tokens identical
  std::vector<KvBytesRow> cache_bytes;  ///< the cached run's final cache, f32 and bf16, vs ledger
  std::string growth_model;          ///< the model the growth table ran on (may differ: lesson_json.h)
  int growth_heads = 0;              ///< its query heads: the rows' q·k count all of them
  std::vector<KvGrowthRow> growth;   ///< increasing lengths
  KvGrowthFit fit;
};

/// The prompt the lesson uses: P ids spread over the vocabulary, (7·i + 3) mod vocab_size.
std::vector<int> lesson_prompt(int prompt_len, int vocab_size);

/// Greedy generation of G tokens after `prompt`, with (cached = true) or without the cache,
/// recording the engine's counters per step. Throws llm0::Error when P + G − 1 exceeds
/// max_position_embeddings, or P or G < 1; Cancelled (core/cancel.h) before a step when the
/// calling thread's work was abandoned.
KvRun run_generation(const Model& model, const std::vector<int>& prompt, int generate, bool cached);

/// Totals lengths of the growth table: up to 6 lengths halving from `up_to` down to P + 1.
std::vector<int> growth_lengths(int prompt_len, int up_to);

/// Least-squares slope of log(y) against log(x). Throws llm0::Error with fewer than two points
/// or a non-positive value.
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y);

/// Runs the whole lesson. Throws llm0::Error naming the option when P < 1, G < 1, L < 0,
/// 0 < L ≤ P, or a length exceeds the model's max_position_embeddings.
KvCacheLesson run_kv_cache_lesson(Model& model, const KvLessonOptions& opt,
                                  const std::string& model_name);

/// Fills `lesson.growth` (rows growth_lengths(lesson.prompt_len, up_to)) and `lesson.fit` from
/// one greedy generation per track to total length `up_to` on `model`, reading the engine's
/// counters after each row's last step; `model_name` goes to lesson.growth_model. Cost: the
/// no-cache track does Σ n(n+1)/2 ≈ up_to³/6 q·k scores per head and layer. Throws llm0::Error
/// when up_to ≤ P or up_to exceeds max_position_embeddings.
void run_growth_table(Model& model, KvCacheLesson& lesson, int up_to, const std::string& model_name);

/// The lesson model: a config file whose weights are initialised with init_weights(seed) and
/// then rescaled so that weight matrices have standard deviation `initializer_range` (Hugging
/// Face field; default 0.02 = init_weights as is). Throws llm0::Error naming the file/field.
std::unique_ptr<Model> lesson_model_from_config(const std::string& path, uint64_t seed);

/// The lesson as JSON (field names as in the structs).
nlohmann::json to_json(const KvCacheLesson& lesson);

/// The growth table as a log-log SVG chart (per-layer K/V vectors and q·k scores against the
/// total length, with and without the cache; fitted slopes in the legend). Throws llm0::Error
/// when the lesson has fewer than two growth rows.
std::string kv_growth_svg(const KvCacheLesson& lesson);

/// A slope with two decimals ("1.98").
std::string format_slope(double slope);

}  // namespace llm0::lesson
