// Token-by-token generation with the cache growing (lesson_generate_steps.h).
#include "lesson/lesson_generate_steps.h"

#include "core/cancel.h"
#include "core/check.h"
#include "infer/token_pieces.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

// The counters and cache bytes of the run so far.
json state_json(const GenerateResult& r) {
  return {{"cache_bytes", r.kv_cache_bytes}, {"kv_projected", r.total_counters.kv_projected},
          {"qk_scores", r.total_counters.qk_scores}};
}

}  // namespace

json generate_steps_json(GenerationModel& m, const std::string& model_name,
                         const GenerateStepsOptions& opt) {
  LLM0_CHECK(opt.tokens >= 1, "--tokens must be >= 1, got {}", opt.tokens);
  GenerateOptions g;
  g.max_new_tokens = opt.tokens;
  g.sampler.temperature = opt.temperature;
  g.sampler.seed = opt.seed;
  Generator gen(*m.model, *m.tokenizer);
  gen.start(opt.text, g);
  const GenerateResult prefill = gen.result();
  json steps = json::array();
  while (!gen.finished()) {
    cancel_point();  // a step boundary: abandoned work (core/cancel.h) stops here
    const GenerateStep& s = gen.next();
    if (s.token < 0) break;
    json step = state_json(gen.result());
    step["token"] = {{"id", s.token}, {"text", token_piece(*m.tokenizer, s.token)}};
    step["text"] = s.text;  // the step's decoded delta: bytes of an unfinished character held back
    steps.push_back(std::move(step));
  }
  const GenerateResult end = gen.result();
  return {{"lesson", "generate-steps"}, {"model", model_name}, {"text", opt.text},
          {"temperature", opt.temperature}, {"seed", opt.seed},
          {"prompt", token_pieces_json(*m.tokenizer, prefill.prompt_ids)},
          {"prefill", state_json(prefill)}, {"steps", steps},
          {"stop_reason", stop_reason_name(end.stop_reason)},
          {"generated_text", generate_result_json(end)["text"]}};
}

}  // namespace llm0::lesson
