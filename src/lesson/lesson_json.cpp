// The lessons' inputs and JSON shared by `llm0 lesson` and the explorer (lesson_json.h).
#include "lesson/lesson_json.h"

#include <memory>

#include "core/check.h"
#include "core/shipped_file.h"

namespace llm0::lesson {

TeachingWorld attention_world(const std::string& world_path, const std::string& asker) {
  TeachingWorld w =
      load_world(world_path.empty() ? shipped_file("data/teaching-world.json") : world_path);
  return asker.empty() ? w : with_asker(w, asker);
}

std::string default_asker() {
  const TeachingWorld w = attention_world("", "");
  LLM0_CHECK(w.swap.has_value(), "{}: no \"swap_test\", so there is no asker", w.source);
  return w.tokens[(size_t)w.swap->query];
}

namespace {

// A shipped config is named by its place in the repository, not this machine's path.
std::string random_model_name(const std::string& config, uint64_t seed) {
  return format("{} (random weights, seed {})", config, seed);
}

}  // namespace

KvCacheLesson run_kv_cache_lesson(const KvLessonModel& source, const KvLessonOptions& opt) {
  if (source.model != nullptr) return run_kv_cache_lesson(*source.model, opt, source.model_name);
  const std::string tiny = "configs/lesson-tiny.json";
  const std::string cfg = source.config.empty() ? shipped_file(tiny) : source.config;
  const std::unique_ptr<Model> model = lesson_model_from_config(cfg, source.seed);
  const std::string name = random_model_name(source.config.empty() ? tiny : cfg, source.seed);
  if (!source.config.empty() || opt.up_to <= 0) return run_kv_cache_lesson(*model, opt, name);
  // The default: the stepper on lesson-tiny, the growth table on the counting model (its counts
  // per layer and head are lesson-tiny's: they depend on lengths and mask only).
  KvLessonOptions stepper = opt;
  stepper.up_to = 0;
  LLM0_CHECK(opt.up_to > opt.prompt_len,
             "--up-to ({}) must exceed --prompt-len ({}) (or be 0 for no table)", opt.up_to,
             opt.prompt_len);
  KvCacheLesson l = run_kv_cache_lesson(*model, stepper, name);
  run_kv_growth(source, l, opt.up_to);
  return l;
}

void run_kv_growth(const KvLessonModel& source, KvCacheLesson& lesson, int up_to) {
  if (source.model != nullptr) return run_growth_table(*source.model, lesson, up_to, source.model_name);
  const std::string count = "configs/lesson-count.json";
  const std::string cfg = source.config.empty() ? shipped_file(count) : source.config;
  const std::unique_ptr<Model> model = lesson_model_from_config(cfg, source.seed);
  run_growth_table(*model, lesson, up_to, random_model_name(source.config.empty() ? count : cfg, source.seed));
}

nlohmann::json shapes_json(const ShapesLesson& config, const ShapesLesson& world) {
  return {{"lesson", "shapes"}, {"config", to_json(config)}, {"teaching_world", to_json(world)}};
}

}  // namespace llm0::lesson
