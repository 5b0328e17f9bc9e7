// Samples and attention maps at each validation. See validation_probes.h.
#include "train/validation_probes.h"

#include <algorithm>

#include "core/check.h"
#include "infer/attention_map.h"
#include "infer/generator.h"
#include "infer/utf8_stream.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {
// A lane of `model`: its weights in place, everything else its own (model.h Model::LaneOf).
std::unique_ptr<Model> lane_of(Model& model) { return std::make_unique<Model>(Model::LaneOf{model}); }
}  // namespace

void check_probe_options(const TrainOptions& o) {
  LLM0_CHECK(o.sample_tokens >= 1, "--sample-tokens {} must be at least 1", o.sample_tokens);
  LLM0_CHECK(!o.given.count("--sample-tokens") || !o.sample_prompts.empty(), "--sample-tokens {}: "
             "there is no --sample-prompt to continue", o.sample_tokens);
  for (const std::string& p : o.sample_prompts)
    LLM0_CHECK(!p.empty(), "--sample-prompt is empty: give the text the model continues at each "
               "validation");
  LLM0_CHECK(!o.given.count("--attention-text") || !o.attention_text.empty(), "--attention-text "
             "is empty: give the sentence whose attention map is drawn at each validation");
}

void check_probe_lengths(const TrainOptions& o, const Tokenizer& tokenizer, const ModelConfig& cfg) {
  const int context = cfg.max_position_embeddings;
  for (const std::string& p : o.sample_prompts) {
    const size_t n = tokenizer.encode_with_special_tokens(p).size();
    LLM0_CHECK((int)n < context, "--sample-prompt \"{}\" is {} tokens: the model's context of {} "
               "(max_position_embeddings) leaves no room to continue it; give a shorter prompt", p,
               n, context);
  }
  if (o.attention_text.empty()) return;
  const int limit = std::min(kAttentionMapMaxTokens, context);
  const size_t n = tokenizer.encode_with_special_tokens(o.attention_text).size();
  LLM0_CHECK((int)n <= limit, "--attention-text \"{}\" is {} tokens; the attention map takes at "
             "most {} (the model's context is {})", o.attention_text, n, limit, context);
}

std::vector<ProbeSample> sample_prompts(Model& model, const Tokenizer& tokenizer, const TrainOptions& o) {
  std::vector<ProbeSample> out;
  if (o.sample_prompts.empty()) return out;
  const std::unique_ptr<Model> lane = lane_of(model);
  Generator gen(*lane, tokenizer);
  GenerateOptions g;
  g.max_new_tokens = o.sample_tokens;
  g.sampler.temperature = kSampleTemperature, g.sampler.top_k = kSampleTopK, g.sampler.seed = o.seed;
  for (const std::string& p : o.sample_prompts) {
    // The last token may end inside a character (byte-level vocabularies): the sample ends at the
    // last whole one, as a stream would show it (infer/utf8_stream.h), not with U+FFFD.
    std::string text = gen.generate(p, g).text;
    text.resize(text.size() - utf8_incomplete_tail(text));
    out.push_back({p, std::move(text)});
  }
  return out;
}

nlohmann::json samples_record(int step, const std::vector<ProbeSample>& samples, const TrainOptions& o) {
  nlohmann::json list = nlohmann::json::array();
  for (const ProbeSample& s : samples) list.push_back({{"prompt", s.prompt}, {"text", s.text}});
  return {{"step", step}, {"samples", std::move(list)}, {"sample_tokens", o.sample_tokens},
          {"temperature", kSampleTemperature}, {"top_k", kSampleTopK}, {"sample_seed", o.seed}};
}

nlohmann::json attention_record(int step, Model& model, const Tokenizer& tokenizer, const TrainOptions& o) {
  const std::unique_ptr<Model> lane = lane_of(model);
  return {{"step", step}, {"attention", attention_map_json(*lane, tokenizer, o.out, o.attention_text)}};
}

std::string sample_line(const ProbeSample& s) {
  // For a terminal: a newline as ⏎, other control characters and bytes that are not UTF-8 (an
  // undertrained model samples any byte token) as U+FFFD, so no byte reaches the terminal raw.
  std::string text;
  for (size_t i = 0; i < s.text.size();) {
    char32_t cp = 0;
    const int n = utf8_decode(s.text, i, cp);
    if (n > 0 && cp == U'\n') text += "⏎";
    else if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) text += "\xEF\xBF\xBD";
    else text.append(s.text, i, (size_t)n);
    i += n > 0 ? (size_t)n : 1;
  }
  return "sample " + s.prompt + " → " + text;
}

}  // namespace llm0
