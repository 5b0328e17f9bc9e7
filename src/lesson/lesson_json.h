// What `llm0 lesson attention|kv-cache|shapes` and the explorer's endpoints (src/explore/) both
// run, so the terminal and the pages can never disagree: the lesson's inputs resolved from the
// options (shipped defaults data/teaching-world.json and configs/lesson-tiny.json found with
// shipped_file()) and the shapes lesson's JSON.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "lesson/lesson_kv_cache.h"
#include "lesson/lesson_shapes.h"
#include "lesson/lesson_world.h"
#include "model/model.h"

namespace llm0::lesson {

/// The attention lesson's world: `world_path` (empty = the shipped one) with the swap test's
/// asker set to `asker` (empty = the world's own query row). Throws llm0::Error naming the file,
/// field or token.
TeachingWorld attention_world(const std::string& world_path, const std::string& asker);

/// The token of the shipped world's swap-test query row ("给了"): the asker of `llm0 lesson
/// attention` without --asker, which the explorer states once (info.default_asker) for its pages.
/// Throws llm0::Error when the shipped world cannot be read or has no "swap_test".
std::string default_asker();

/// Where the kv-cache lesson's model comes from: a loaded model (then `model_name` names it in
/// the JSON) or, when `model` is null, a random model of `config` (empty = the shipped
/// configs/lesson-tiny.json) with weights from `seed`.
struct KvLessonModel {
  Model* model = nullptr;
  std::string model_name;
  std::string config;
  uint64_t seed = 1;
};

/// The kv-cache lesson run on that model; for the default model (no `model`, no `config`) the
/// growth table runs on the shipped configs/lesson-count.json (1 layer, 1 head of head_dim 2):
/// the same counts per layer and head as lesson-tiny, in seconds at L = 4,096. Throws llm0::Error as run_kv_cache_lesson (P, G, L out
/// of range or past the context) and lesson_model_from_config do.
KvCacheLesson run_kv_cache_lesson(const KvLessonModel& source, const KvLessonOptions& opt);

/// The growth table of run_kv_cache_lesson(source, opt) alone: fills lesson.growth_model,
/// growth_heads, growth and fit for total lengths up to `up_to`, from lesson.prompt_len (P) —
/// on the loaded model, on `config`'s random model, or on configs/lesson-count.json for the
/// default. Throws llm0::Error as run_growth_table (L ≤ P, L past the context).
void run_kv_growth(const KvLessonModel& source, KvCacheLesson& lesson, int up_to);

/// `lesson shapes --json`: one head's shapes for a config beside the teaching world's.
nlohmann::json shapes_json(const ShapesLesson& config, const ShapesLesson& world);

}  // namespace llm0::lesson
