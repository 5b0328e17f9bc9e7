// The loaded model's endpoints (explore_handlers.h): attention-map and generate-steps, the same
// lesson:: calls as `llm0 lesson attention-map|generate-steps --model RUN --json`.
#include <algorithm>

#include "explore/explore_handlers.h"
#include "lesson/lesson_attention_map.h"
#include "lesson/lesson_generate_steps.h"

namespace llm0::explore {

using nlohmann::json;

namespace {

std::string required_text(const QueryArgs& q) {
  if (!q.has("text") || q.text("text").empty())
    throw ExploreError(400, "missing_param", "parameter \"text\" is required: the sentence to run",
                       "", {{"param", "text"}});
  return q.text("text");
}

}  // namespace

json lesson_attention_map(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"text"});
  const std::string text = required_text(q);
  ExploreApi::ModelLease lease = api.require_model();
  // The length refusal as data (tokens, limit), so the page says it in its language; the lesson
  // checks the same count again (attention_map_json).
  const int64_t T = std::ssize(lease.model.tokenizer->encode_with_special_tokens(text));
  const int64_t limit = std::min<int64_t>(lesson::kAttentionMapMaxTokens,
                                          lease.model.model->config().max_position_embeddings);
  if (T > limit)
    throw ExploreError(400, "text_too_long", format("the text is {} tokens; the attention map takes "
                       "at most {}", T, limit), "", {{"param", "text"}, {"tokens", T}, {"limit", limit}});
  return lesson::attention_map_json(lease.model, lease.name, text);
}

json lesson_generate_steps(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"text", "tokens", "temperature", "seed"});
  lesson::GenerateStepsOptions opt;
  opt.text = required_text(q);
  opt.tokens = (int)q.integer("tokens", 1, ExploreLimits::kGenerateStepsTokens, opt.tokens);
  opt.temperature = q.number("temperature", 0, 100, opt.temperature);
  opt.seed = (uint64_t)q.integer("seed", 0, (int64_t)1 << 53, (int64_t)opt.seed);
  ExploreApi::ModelLease lease = api.require_model();
  return lesson::generate_steps_json(lease.model, lease.name, opt);
}

}  // namespace llm0::explore
