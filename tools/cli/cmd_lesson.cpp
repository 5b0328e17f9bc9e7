// `llm0 lesson attention|kv-cache|shapes|cache-kinds|hybrid-state|experts`: the attention chapter's
// figures computed by the
// engine (src/lesson/lesson_*.h): attention weights and the K/V swap test on the teaching world,
// the work a KV cache saves in real generation, and the shapes of one attention head.
// Shipped files (data/teaching-world.json, configs/lesson-tiny.json) are looked up in the current
// directory, then next to the program and in its parent directories.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "core/shipped_file.h"
#include "io/checkpoint.h"
#include "lesson/lesson_attention_json.h"
#include "lesson/lesson_json.h"
#include "lesson/lesson_svg.h"
#include "lesson/lesson_text.h"
#include "lesson/lesson_cache_kinds.h"
#include "lesson/lesson_experts.h"
#include "lesson/lesson_hybrid_state.h"
#include "lesson/lesson_shared_kv.h"

namespace llm0::cli {

namespace {

namespace fs = std::filesystem;

void print_json(const nlohmann::json& j) { std::printf("%s\n", j.dump(2).c_str()); }

struct AttentionArgs {
  std::string world, asker;
  bool json = false;
};

void run_attention(const AttentionArgs& a) {
  const lesson::AttentionLesson l =
      lesson::run_attention_lesson(lesson::attention_world(a.world, a.asker));
  const lesson::SharedKvAnswer shared = lesson::run_shared_kv_answer();  // the aside's numbers
  if (a.json) {
    nlohmann::json j = lesson::to_json(l);
    j["shared_kv"] = lesson::to_json(shared);
    return print_json(j);
  }
  std::fputs(lesson::attention_text(l).c_str(), stdout);
  std::fputs(lesson::shared_kv_answer_text(shared).c_str(), stdout);
}

struct KvArgs {
  std::string model_dir, config;
  uint64_t seed = 1;
  int prompt_len = 2, generate = 3, up_to = 256;
  std::string svg;
  bool json = false;
};

void run_kv_cache(const KvArgs& a) {
  LLM0_CHECK(a.model_dir.empty() || a.config.empty(), "give --model or --config, not both");
  std::unique_ptr<Model> model;
  if (!a.model_dir.empty()) model = load_model(resolve_checkpoint_dir(a.model_dir));
  const lesson::KvCacheLesson l = lesson::run_kv_cache_lesson(
      lesson::KvLessonModel{model.get(), a.model_dir, a.config, a.seed},
      {a.prompt_len, a.generate, a.up_to});
  if (!a.svg.empty()) lesson::write_text_file(a.svg, lesson::kv_growth_svg(l));
  if (a.json) {
    nlohmann::json j = lesson::to_json(l);
    if (!a.svg.empty()) j["svg"] = a.svg;
    return print_json(j);
  }
  std::fputs(lesson::kv_cache_text(l).c_str(), stdout);
  if (!a.svg.empty()) std::printf("\nchart written to %s\n", a.svg.c_str());
}

struct ShapesArgs {
  std::string config, world, svg;
  int64_t tokens = -1;
  bool has_tokens = false, json = false;
};

void run_shapes(const ShapesArgs& a) {
  LLM0_CHECK(!a.has_tokens || a.tokens >= 1, "--tokens must be >= 1, got {}", a.tokens);
  const lesson::ShapesLesson cfg =
      lesson::shapes_from_config(a.config, a.has_tokens ? a.tokens : -1);
  const std::string wpath = a.world.empty() ? shipped_file("data/teaching-world.json") : a.world;
  const lesson::ShapesLesson world = lesson::shapes_from_world(lesson::load_world(wpath));
  if (!a.svg.empty()) lesson::write_text_file(a.svg, lesson::shapes_svg({cfg, world}));
  if (a.json) {
    nlohmann::json j = lesson::shapes_json(cfg, world);
    if (!a.svg.empty()) j["svg"] = a.svg;
    return print_json(j);
  }
  std::printf("One attention head: Q_h, K_h, V_h [T, d_h]; A_h = softmax(Q_h K_hᵀ/√d_h) [T, T]; "
              "O_h = A_h V_h [T, d_h]\n\n");
  std::fputs(lesson::shapes_text(cfg).c_str(), stdout);
  std::printf("\n");
  std::fputs(lesson::shapes_text(world).c_str(), stdout);
  if (!a.svg.empty()) std::printf("\npicture written to %s\n", a.svg.c_str());
}

void add_attention(CLI::App* lesson) {
  auto args = std::make_shared<AttentionArgs>();
  CLI::App* sub = lesson->add_subcommand(
      "attention", "Attention weights, outputs, sinks and the K/V swap test on the teaching world");
  sub->add_option("--world", args->world,
                  "Teaching world file (default: the shipped data/teaching-world.json)");
  sub->add_option("--asker", args->asker,
                  "Token whose row the swap test reads (default: the world's swap_test.query)");
  sub->add_flag("--json", args->json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args] { run_attention(*args); });
}

void add_kv_cache(CLI::App* lesson) {
  auto args = std::make_shared<KvArgs>();
  CLI::App* sub = lesson->add_subcommand(
      "kv-cache", "Greedy generation with and without the KV cache: the engine's work counters");
  sub->add_option("--model", args->model_dir, "Checkpoint directory (default: a random model)");
  sub->add_option("--config", args->config,
                  "Config of the random model (default: configs/lesson-tiny.json)");
  sub->add_option("--seed", args->seed, "Seed of the random weights")->check(seed_check())->capture_default_str();
  sub->add_option("--prompt-len", args->prompt_len, "Prompt tokens P")->capture_default_str();
  sub->add_option("--generate", args->generate, "Generated tokens G")->capture_default_str();
  sub->add_option("--up-to", args->up_to, "Longest total length of the growth table (0 = none)")
      ->capture_default_str();
  sub->add_option("--svg", args->svg, "Write the growth chart to this SVG file");
  sub->add_flag("--json", args->json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args] { run_kv_cache(*args); });
}

void add_shapes(CLI::App* lesson) {
  auto args = std::make_shared<ShapesArgs>();
  CLI::App* sub = lesson->add_subcommand(
      "shapes", "Shapes of one attention head for a real config and for the teaching world");
  sub->add_option("--config", args->config, "Hugging Face config.json")->required();
  sub->add_option("--tokens", args->tokens, "Tokens T (default: max_position_embeddings)")
      ->each([args](const std::string&) { args->has_tokens = true; });
  sub->add_option("--world", args->world, "Teaching world file (default: the shipped one)");
  sub->add_option("--svg", args->svg, "Write the picture (log-scale edges) to this SVG file");
  sub->add_flag("--json", args->json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args] { run_shapes(*args); });
}

struct CacheKindsArgs {
  lesson::CacheKindOptions opt;
  std::string svg;
  bool json = false;
};

void run_cache_kinds(CacheKindsArgs& a) {
  a.opt.reference_dir = fs::path(shipped_file("configs/reference/deepseek-v2.json")).parent_path();
  const lesson::CacheKindsLesson l = lesson::run_cache_kinds_lesson(a.opt);
  if (!a.svg.empty()) lesson::write_text_file(a.svg, lesson::cache_kinds_svg(l));
  if (a.json) {
    nlohmann::json j = lesson::to_json(l);
    if (!a.svg.empty()) j["svg"] = a.svg;
    return print_json(j);
  }
  std::fputs(lesson::cache_kinds_text(l).c_str(), stdout);
  if (!a.svg.empty()) std::printf("\nchart written to %s\n", a.svg.c_str());
}

void add_cache_kinds(CLI::App* lesson) {
  auto args = std::make_shared<CacheKindsArgs>();
  CLI::App* sub = lesson->add_subcommand(
      "cache-kinds", "MHA, GQA, MQA and MLA (both decode forms) run by the engine: cache bytes "
      "per token, decode work and time as the context grows");
  sub->add_option("--hidden-size", args->opt.hidden_size, "Width C of the four models (4 heads)")
      ->capture_default_str();
  add_positive_list_option(sub, "--contexts", args->opt.contexts, "Prefill lengths, e.g. 256,1024,4096");
  sub->add_option("--decode-tokens", args->opt.decode_tokens, "Decoded tokens per context")
      ->capture_default_str();
  sub->add_option("--svg", args->svg, "Write the decode-work chart to this SVG file");
  sub->add_flag("--json", args->json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args] { run_cache_kinds(*args); });
}

void add_hybrid_state(CLI::App* lesson) {
  auto args = std::make_shared<lesson::HybridStateOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = lesson->add_subcommand(
      "hybrid-state", "A Gated DeltaNet hybrid run by the engine: KV bytes (∝ n) vs recurrent "
      "state bytes (constant) and decode time as the context grows, beside `llm0 kv` of the "
      "anchor");
  sub->add_option("--config", args->config,
                  "Model config (default: configs/llm0-small-hybrid.json)");
  sub->add_option("--anchor", args->anchor,
                  "Config for the ledger column (default: configs/reference/"
                  "course-anchor-hybrid.json)");
  add_positive_list_option(sub, "--contexts", args->contexts,
                           "Prefill lengths, e.g. 256,4096,16384");
  sub->add_option("--decode-tokens", args->decode_tokens, "Decoded tokens per context")
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed of the random weights")->check(seed_check());
  sub->add_flag("--json", *json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args, json] {
    if (args->config.empty()) args->config = shipped_file("configs/llm0-small-hybrid.json");
    if (args->anchor.empty())
      args->anchor = shipped_file("configs/reference/course-anchor-hybrid.json");
    const lesson::HybridStateLesson l = lesson::run_hybrid_state_lesson(*args);
    if (*json) return print_json(lesson::to_json(l));
    std::fputs(lesson::hybrid_state_text(l).c_str(), stdout);
  });
}

void add_experts(CLI::App* lesson) {
  auto args = std::make_shared<lesson::ExpertsOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = lesson->add_subcommand(
      "experts", "A mixture-of-experts model run by the engine: total vs active parameters, "
      "where a batch's tokens go, and the router's zero gradient under top-1 renormalised routing");
  sub->add_option("--config", args->config, "Model config with MoE layers (default: "
                  "configs/llm0-small-moe.json)");
  sub->add_option("--tokens", args->tokens, "Tokens of the routed batch")->capture_default_str();
  sub->add_option("--seed", args->seed, "Seed of the random weights and tokens")->check(seed_check());
  sub->add_flag("--json", *json, "Print JSON");
  add_threads_option(sub);
  sub->callback([args, json] {
    if (args->config.empty()) args->config = shipped_file("configs/llm0-small-moe.json");
    const lesson::ExpertsLesson l = lesson::run_experts_lesson(*args);
    if (*json) return print_json(lesson::to_json(l));
    std::fputs(lesson::experts_text(l).c_str(), stdout);
  });
}

}  // namespace

void add_model_lessons(CLI::App* lesson);  // cmd_lesson_model.cpp

void register_lesson(CLI::App& app) {
  CLI::App* lesson = app.add_subcommand(
      "lesson", "The attention chapter's experiments, computed by the engine");
  lesson->require_subcommand(1);
  add_attention(lesson);
  add_kv_cache(lesson);
  add_shapes(lesson);
  add_cache_kinds(lesson);
  add_hybrid_state(lesson);
  add_experts(lesson);
  add_model_lessons(lesson);
}

}  // namespace llm0::cli
