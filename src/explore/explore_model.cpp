// The loaded model's endpoints (explore_handlers.h): attention-map and generate-steps, the same
// lesson:: calls as `llm0 lesson attention-map|generate-steps --model RUN --json`.
#include "explore/explore_handlers.h"
#include "lesson/lesson_attention_map.h"
#include "lesson/lesson_generate_steps.h"

namespace llm0::explore {

using nlohmann::json;

namespace {

std::string required_text(const QueryArgs& q) {
  if (!q.has("text") || q.text("text").empty())
    throw ExploreError(400, "bad_request", "parameter \"text\" is required: the sentence to run");
  return q.text("text");
}

}  // namespace

json lesson_attention_map(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"text"});
  const std::string text = required_text(q);
  return lesson::attention_map_json(api.require_model(), api.options().model_dir, text);
}

json lesson_generate_steps(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"text", "tokens", "temperature", "seed"});
  lesson::GenerateStepsOptions opt;
  opt.text = required_text(q);
  opt.tokens = (int)q.integer("tokens", 1, ExploreLimits::kGenerateStepsTokens, opt.tokens);
  opt.temperature = q.number("temperature", 0, 100, opt.temperature);
  opt.seed = (uint64_t)q.integer("seed", 0, (int64_t)1 << 53, (int64_t)opt.seed);
  return lesson::generate_steps_json(api.require_model(), api.options().model_dir, opt);
}

}  // namespace llm0::explore
