// The teaching lessons' endpoints (explore_handlers.h): attention, kv-cache, shapes — the same
// lesson:: calls as `llm0 lesson attention|kv-cache|shapes --json` (tools/cli/cmd_lesson.cpp).
#include "explore/explore_handlers.h"
#include "lesson/lesson_attention.h"
#include "lesson/lesson_json.h"

namespace llm0::explore {

using nlohmann::json;

json lesson_attention(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"asker"});
  if (q.has("asker") && q.text("asker").empty())
    throw ExploreError(400, "bad_request", "parameter \"asker\" is empty (give a token of the sentence)");
  return lesson::to_json(lesson::run_attention_lesson(lesson::attention_world("", q.text("asker"))));
}

json lesson_kv_cache(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"prompt-len", "generate", "up-to", "seed", "model"});
  lesson::KvLessonModel source;
  if (q.has("model")) {
    if (q.text("model") != "loaded")
      throw ExploreError(400, "bad_request", format("parameter \"model\" takes only the value "
                         "\"loaded\" (the server's model), got \"{}\"", q.text("model")));
    if (q.has("seed"))
      throw ExploreError(400, "bad_request", "parameter \"seed\" is for the random model; "
                         "model=loaded has trained weights");
    source.model = api.require_model().model.get();
    source.model_name = api.options().model_dir;
  }
  source.seed = (uint64_t)q.integer("seed", 0, (int64_t)1 << 53, 1);
  lesson::KvLessonOptions opt;
  opt.prompt_len = (int)q.integer("prompt-len", 1, ExploreLimits::kLessonPromptLen, opt.prompt_len);
  opt.generate = (int)q.integer("generate", 1, ExploreLimits::kLessonGenerate, opt.generate);
  opt.up_to = (int)q.integer("up-to", 0, ExploreLimits::kKvCacheUpTo, opt.up_to);
  return lesson::to_json(lesson::run_kv_cache_lesson(source, opt));
}

json lesson_shapes(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"config", "tokens"});
  if (!q.has("config"))
    throw ExploreError(400, "bad_request", format("parameter \"config\" is required (one of "
                       "info.reference_configs, e.g. deepseek-v2)"));
  const std::string path = reference_config_path(q.text("config"));
  const int64_t tokens = q.integer("tokens", 1, (int64_t)1 << 40, -1);
  return lesson::shapes_json(lesson::shapes_from_config(path, tokens),
                             lesson::shapes_from_world(lesson::attention_world("", "")));
}

}  // namespace llm0::explore
