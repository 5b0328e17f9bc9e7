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

KvCacheLesson run_kv_cache_lesson(const KvLessonModel& source, const KvLessonOptions& opt) {
  if (source.model != nullptr) return run_kv_cache_lesson(*source.model, opt, source.model_name);
  // A shipped config is named by its place in the repository, not this machine's path.
  auto named = [&](const std::string& cfg) {
    return format("{} (random weights, seed {})", cfg, source.seed);
  };
  const std::string tiny = "configs/lesson-tiny.json";
  const std::string cfg = source.config.empty() ? shipped_file(tiny) : source.config;
  const std::unique_ptr<Model> model = lesson_model_from_config(cfg, source.seed);
  const std::string name = named(source.config.empty() ? tiny : cfg);
  if (!source.config.empty() || opt.up_to <= 0) return run_kv_cache_lesson(*model, opt, name);
  // The default: the stepper on lesson-tiny, the growth table on the counting model (its counts
  // per layer and head are lesson-tiny's: they depend on lengths and mask only).
  KvLessonOptions stepper = opt;
  stepper.up_to = 0;
  LLM0_CHECK(opt.up_to > opt.prompt_len,
             "--up-to ({}) must exceed --prompt-len ({}) (or be 0 for no table)", opt.up_to,
             opt.prompt_len);
  KvCacheLesson l = run_kv_cache_lesson(*model, stepper, name);
  const std::string count = "configs/lesson-count.json";
  const std::unique_ptr<Model> counter = lesson_model_from_config(shipped_file(count), source.seed);
  run_growth_table(*counter, l, opt.up_to, named(count));
  return l;
}

nlohmann::json shapes_json(const ShapesLesson& config, const ShapesLesson& world) {
  return {{"lesson", "shapes"}, {"config", to_json(config)}, {"teaching_world", to_json(world)}};
}

}  // namespace llm0::lesson
