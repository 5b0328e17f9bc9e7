// `llm0 lesson attention-map|generate-steps --model RUN --text ... --json`: the lessons run on a
// trained model (src/lesson/lesson_attention_map.h, lesson_generate_steps.h) — the CLI twins of
// the explorer's "your model" panels (docs/explore-api.md). JSON only: the numbers are for pages
// and scripts (a heat map of layers × heads × T² weights does not read as text).
#include <cstdio>
#include <memory>
#include <string>

#include "common.h"
#include "lesson/lesson_attention_map.h"
#include "lesson/lesson_generate_steps.h"

namespace llm0::cli {

namespace {

struct ModelLessonArgs {
  std::string model, text;
  lesson::GenerateStepsOptions steps;
  bool json = false;
};

void add_common(CLI::App* sub, ModelLessonArgs& a) {
  sub->add_option("--model", a.model, "Checkpoint directory, or a training run")->required();
  sub->add_option("--text", a.text, "The sentence")->required();
  sub->add_flag("--json", a.json, "Print JSON (the only output form)")->required();
  add_threads_option(sub);
}

}  // namespace

void add_model_lessons(CLI::App* lesson) {
  auto map = std::make_shared<ModelLessonArgs>();
  CLI::App* sub = lesson->add_subcommand(
      "attention-map", "Every layer's and head's attention weights of a trained model on a sentence");
  add_common(sub, *map);
  sub->callback([map] {
    GenerationModel m = load_generation_model(map->model);
    std::printf("%s\n", lesson::attention_map_json(m, map->model, map->text).dump(2).c_str());
  });

  auto gen = std::make_shared<ModelLessonArgs>();
  sub = lesson->add_subcommand(
      "generate-steps", "Generation with the KV cache token by token: each token, the cache's "
      "bytes in use and the engine's work counters");
  add_common(sub, *gen);
  sub->add_option("--tokens", gen->steps.tokens, "Tokens to generate")
      ->check(CLI::Range(1, 1 << 20))->capture_default_str();
  sub->add_option("--temperature", gen->steps.temperature, "0 = greedy; > 0 sampled (top-k off)")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  sub->add_option("--seed", gen->steps.seed, "Sampler seed")->check(seed_check())->capture_default_str();
  sub->callback([gen] {
    GenerationModel m = load_generation_model(gen->model);
    gen->steps.text = gen->text;
    std::printf("%s\n", lesson::generate_steps_json(m, gen->model, gen->steps).dump(2).c_str());
  });
}

}  // namespace llm0::cli
