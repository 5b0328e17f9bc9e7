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
  const std::string cfg =
      source.config.empty() ? shipped_file("configs/lesson-tiny.json") : source.config;
  const std::unique_ptr<Model> model = lesson_model_from_config(cfg, source.seed);
  return run_kv_cache_lesson(*model, opt, format("{} (random weights, seed {})", cfg, source.seed));
}

nlohmann::json shapes_json(const ShapesLesson& config, const ShapesLesson& world) {
  return {{"lesson", "shapes"}, {"config", to_json(config)}, {"teaching_world", to_json(world)}};
}

}  // namespace llm0::lesson
