// The teaching lessons' endpoints (explore_handlers.h): attention, kv-cache, shapes — the same
// lesson:: calls as `llm0 lesson attention|kv-cache|shapes --json` (tools/cli/cmd_lesson.cpp).
#include <optional>

#include "explore/explore_handlers.h"
#include "lesson/lesson_attention.h"
#include "lesson/lesson_attention_json.h"
#include "lesson/lesson_json.h"
#include "lesson/lesson_shapes.h"
#include "lesson/lesson_shared_kv.h"

namespace llm0::explore {

using nlohmann::json;

json lesson_attention(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"asker"});
  if (q.has("asker") && q.text("asker").empty())
    throw ExploreError(400, "bad_request", "parameter \"asker\" is empty (give a token of the sentence)");
  json j = lesson::to_json(lesson::run_attention_lesson(lesson::attention_world("", q.text("asker"))));
  j["shared_kv"] = lesson::to_json(lesson::run_shared_kv_answer());  // "is retrieving K wrong?"
  return j;
}

json lesson_kv_cache(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"prompt-len", "generate", "up-to", "seed", "model"});
  lesson::KvLessonModel source;
  std::optional<ExploreApi::ModelLease> lease;
  if (q.has("model")) {
    if (q.text("model") != "loaded")
      throw ExploreError(400, "bad_request", format("parameter \"model\" takes only the value "
                         "\"loaded\" (the server's model), got \"{}\"", q.text("model")));
    if (q.has("seed"))
      throw ExploreError(400, "bad_request", "parameter \"seed\" is for the random model; "
                         "model=loaded has trained weights");
    lease.emplace(api.require_model());
    source.model = lease->model.model.get();
    source.model_name = lease->name;
  }
  source.seed = (uint64_t)q.integer("seed", 0, (int64_t)1 << 53, 1);
  lesson::KvLessonOptions opt;
  opt.prompt_len = (int)q.integer("prompt-len", 1, ExploreLimits::kLessonPromptLen, opt.prompt_len);
  opt.generate = (int)q.integer("generate", 1, ExploreLimits::kLessonGenerate, opt.generate);
  opt.up_to = (int)q.integer("up-to", 0, ExploreLimits::kKvCacheUpTo, opt.up_to);
  if (opt.up_to == 0) return lesson::to_json(lesson::run_kv_cache_lesson(source, opt));
  // The stepper's runs, then the growth table from the memo (run_kv_cache_lesson splits the same
  // way: the table depends on the model, P and L only).
  LLM0_CHECK(opt.up_to > opt.prompt_len, "--up-to ({}) must exceed --prompt-len ({}) (or be 0 "
             "for no table)", opt.up_to, opt.prompt_len);
  lesson::KvLessonOptions stepper = opt;
  stepper.up_to = 0;
  lesson::KvCacheLesson l = lesson::run_kv_cache_lesson(source, stepper);
  // The loaded model by its generation: POST /explore/api/model may replace it.
  const std::string key = format("{} {} {}", source.model ? format("loaded{}", lease->generation)
                                                          : std::to_string(source.seed), opt.prompt_len, opt.up_to);
  const lesson::KvCacheLesson g = api.growth_memo().get_or_compute(key, [&] {
    const ExploreApi::HeavyTurn turn = api.heavy_turn();
    lesson::KvCacheLesson t;
    t.prompt_len = opt.prompt_len;
    lesson::run_kv_growth(source, t, opt.up_to);
    return t;
  });
  l.growth_model = g.growth_model, l.growth_heads = g.growth_heads, l.growth = g.growth, l.fit = g.fit;
  return lesson::to_json(l);
}

json lesson_shapes(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"config", "tokens"});
  if (!q.has("config"))
    throw ExploreError(400, "bad_request", format("parameter \"config\" is required (one of "
                       "info.reference_configs, e.g. deepseek-v2)"));
  const std::string path = reference_config_path(q.text("config"));
  const int64_t tokens = q.integer("tokens", 1, lesson::kShapesMaxTokens, -1);
  return lesson::shapes_json(lesson::shapes_from_config(path, tokens),
                             lesson::shapes_from_world(lesson::attention_world("", "")));
}

}  // namespace llm0::explore
