// `llm0 bench train|generate`: like-for-like speed figures for the peer comparison
// (scripts/bench_peers.sh, docs/performance.md).
//   bench peak: the machine's ceilings per thread count (cmd_bench_peak.cpp).
//   bench train --config C.json [--batch-size 8 --seq-len 256 --steps N --warmup 1
//               --precision f32|bf16|auto]
//     full training steps (zero_grad, forward, backward, AdamW) on synthetic tokens from random
//     weights: tokens/s, achieved GFLOP/s by the PaLM formula (ledger/flops.h), the measured
//     sgemm ceiling (ledger/sgemm_peak.h) and FMA peak (ledger/fma_peak.h); achieved / each is
//     the model FLOPs utilisation (MFU). --precision as `llm0 train` (train/precision.h); in bf16
//     the second ceiling is the BF16 dot-product peak (mfu_peak against it).
//   bench generate --model DIR | --config C.json [--prompt-tokens 64 --gen-tokens 128]
//     prefill of a P-token prompt and decode of G tokens with the KV cache (Model::forward_cached),
//     timed as llama-bench's ppP / tgG: each from an empty cache, mean over --repeats after one
//     warm-up. Reports the weight bytes read per decoded token and the decode bound from a
//     measured memory-read bandwidth (bytes/s ÷ bytes per token).
//   bench context --config C.json | --model DIR [--contexts 512,4096,16384 --decode-tokens 32]
//     for each context n, from an empty cache: prefill n tokens (seconds, q·k scores), then decode
//     G tokens (seconds per token, and per token the q·k scores and cached K/V bytes the attention
//     read, from the engine's counters): how decode cost grows with context, full attention vs
//     sliding-window layers (whose ring caches hold W positions).
// bench train's mfu_cpu is its MFU in CPU time, the figure to compare on a busy machine.
// --json prints one JSON object on stdout instead of the text lines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.h"
#include "ledger/param_count.h"
#include "ledger/read_bandwidth.h"
#include "core/check.h"
#include "core/cpu_features.h"
#include "core/openblas_core.h"
#include "core/threads.h"
#include "io/checkpoint.h"
#include "ledger/flops.h"
#include "ledger/fma_peak.h"
#include "ledger/sgemm_peak.h"
#include "model/infer_context.h"
#include "model/init.h"
#include "model/model.h"
#include "ops/bf16_kernels.h"
#include "train/adamw.h"
#include "train/precision.h"
#include "train/thread_lanes.h"

namespace llm0::cli {

void register_bench_peak(CLI::App& bench);

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Prints `j` as one JSON line, or its fields as "key: value" lines.
void emit(const nlohmann::json& j, bool as_json) {
  if (as_json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    std::printf("%-28s %s\n", (it.key() + ":").c_str(), it.value().dump().c_str());
}

struct TrainBenchArgs {
  std::string config;
  int batch = 8, seq = 256, steps = 5, warmup = 1, sgemm_n = 2048;
  std::string precision = "f32";
  bool json = false;
};

/// Times `steps` full training steps after `warmup` untimed ones; prints the figures.
void run_bench_train(const TrainBenchArgs& a) {
  const ModelConfig cfg = ModelConfig::from_file(a.config);
  LLM0_CHECK(a.seq <= cfg.max_position_embeddings, "--seq-len {} > max_position_embeddings {} of {}",
             a.seq, cfg.max_position_embeddings, a.config);
  Model model(cfg);
  init_weights(model, 1);
  const PrecisionChoice prec = choose_precision(a.precision, cfg, a.batch * a.seq);
  model.set_bf16_products(prec.precision == TrainPrecision::Bf16);
  AdamW opt(model.params());
  const size_t n = (size_t)a.batch * a.seq;
  std::vector<int> tokens(n), targets(n);
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> pick(0, cfg.vocab_size - 1);
  for (size_t i = 0; i < n; ++i) tokens[i] = pick(rng), targets[i] = pick(rng);
  double loss = 0;
  ThreadLanes lanes(model);  // as llm0 train: the batch's sequences shared out over the threads
  auto step = [&] {
    model.params().zero_grad();
    long count = 0;
    loss = lanes.forward(tokens.data(), targets.data(), a.batch, a.seq, &count) / (double)count;
    lanes.backward(1.0f / (float)count);
    opt.step(model.params(), 1e-4);
  };
  for (int i = 0; i < a.warmup; ++i) step();
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  for (int i = 0; i < a.steps; ++i) step();
  const double secs = seconds_since(t0), cpu_secs = process_cpu_seconds() - cpu0;
  const double tok_s = (double)n * a.steps / secs;
  const double gflops = tok_s * train_flops_per_token(cfg, a.seq) / 1e9;
  nlohmann::json j = {{"engine", "llm0"}, {"bench", "train"}, {"config", a.config},
                      {"threads", num_threads()}, {"lanes", lanes.lanes_for(a.batch)},
                      {"batch_size", a.batch}, {"seq_len", a.seq},
                      {"steps", a.steps}, {"num_parameters", model.num_parameters()},
                      {"matmul_parameters", matmul_parameters(cfg)},
                      {"seconds_per_step", secs / a.steps},
                      {"cpu_seconds_per_step", cpu_secs / a.steps}, {"tokens_per_s", tok_s},
                      {"gflops", gflops}, {"last_loss", loss}};
  j["openblas_core"] = openblas_core().core;
  j["kernel_isa"] = isa_name(kernel_isa());
  j["precision"] = precision_name(prec.precision);
  j["precision_reason"] = prec.reason;
  if (a.sgemm_n > 0) {
    const double peak = measure_sgemm_gflops(a.sgemm_n, 3), fma = measure_fma_gflops(num_threads());
    // MFU in CPU time (GFLOP per CPU-second, steps and sgemm alike): on cores shared with other
    // processes the wall-clock figures drop with the load, this one does not (at 1 thread; at more
    // threads it also counts the time threads spin waiting for each other).
    const double sgemm_cpu = measure_sgemm_gflops(a.sgemm_n, 3, true);
    j["sgemm_cpu_gflops"] = sgemm_cpu;
    j["mfu_cpu"] = (double)n * train_flops_per_token(cfg, a.seq) / (cpu_secs / a.steps) / 1e9 / sgemm_cpu;
    j["sgemm_n"] = a.sgemm_n;
    j["sgemm_gflops"] = peak;
    j["fma_peak_gflops"] = fma;
    j["mfu"] = gflops / peak;
    j["mfu_fma"] = gflops / fma;
    if (prec.precision == TrainPrecision::Bf16) {  // MFU against the precision's own peak
      const double bf16 = measure_bf16_dot_gflops(num_threads());
      j["bf16_peak_gflops"] = bf16;
      j["mfu_peak"] = gflops / bf16;
    } else {
      j["mfu_peak"] = gflops / fma;
    }
  }
  emit(j, a.json);
}

struct GenBenchArgs {
  std::string model, config;
  int prompt_tokens = 64, gen_tokens = 128, repeats = 3;
  MlaDecode mla_form = MlaDecode::Absorbed;
  InferDtypes dtypes;
  bool json = false;
};

/// Mean tokens/s of `repeats` runs of `fn` (which processes `tokens` tokens) after one warm-up.
template <class F>
double mean_rate(int repeats, int tokens, F fn) {
  fn();
  double total = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    fn();
    total += tokens / seconds_since(t0);
  }
  return total / repeats;
}

/// The checkpoint at `model_dir`, or random weights (seed 1) of `config`: exactly one given.
std::unique_ptr<Model> bench_model(const std::string& model_dir, const std::string& config,
                                   DType* stored) {
  LLM0_CHECK(model_dir.empty() != config.empty(), "give exactly one of --model DIR or --config C.json");
  if (!model_dir.empty()) return load_model(resolve_checkpoint_dir(model_dir), stored);
  auto model = std::make_unique<Model>(ModelConfig::from_file(config));
  init_weights(*model, 1);
  return model;
}

/// Prefill (ppP) and decode (tgG) tokens/s from an empty cache, as llama-bench times them.
void run_bench_generate(const CLI::App& cmd, const GenBenchArgs& a) {
  DType stored = DType::F32;
  std::unique_ptr<Model> model = bench_model(a.model, a.config, &stored);
  apply_mixer_options(cmd, *model, 0);
  apply_infer_dtypes(*model, a.dtypes, stored);
  const ModelConfig& cfg = model->config();
  const int P = a.prompt_tokens, G = a.gen_tokens, V = cfg.vocab_size;
  LLM0_CHECK(std::max(P, G) <= cfg.max_position_embeddings,
             "--prompt-tokens {} / --gen-tokens {} exceed max_position_embeddings {}", P, G,
             cfg.max_position_embeddings);
  std::vector<int> prompt((size_t)P);
  for (int i = 0; i < P; ++i) prompt[(size_t)i] = (i * 37 + 11) % V;
  std::vector<float> logits((size_t)V);
  ModelCache cache = model->new_cache(std::max(P, G));
  InferContext ctx(*model);
  ctx.set_mla_decode(a.mla_form);
  const double pp = mean_rate(a.repeats, P, [&] {
    cache.reset();
    model->forward_cached(prompt.data(), P, cache, ctx, logits.data(), /*last_only=*/true);
  });
  const double tg = mean_rate(a.repeats, G, [&] {
    cache.reset();
    int tok = 1;
    for (int i = 0; i < G; ++i) {
      model->forward_cached(&tok, 1, cache, ctx, logits.data(), true);
      tok = (int)(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
  });
  const double weight_bytes = decode_weight_bytes(cfg, (double)model->num_parameters(),
                                                  (double)model->bf16_numel());
  const double bw = measure_read_bandwidth(5);
  nlohmann::json j = {{"engine", "llm0"}, {"bench", "generate"},
                      {"model", a.model.empty() ? a.config : a.model}, {"threads", num_threads()},
                      {"prompt_tokens", P}, {"gen_tokens", G}, {"repeats", a.repeats},
                      {"weights_dtype", model->bf16_weights() ? "bf16" : "f32"},
                      {"kv_dtype", element_type_name(model->kv_dtype())},
                      {"bf16_kernel", isa_name(bf16_kernel())},
                      {"openblas_core", openblas_core().core},
                      {"num_parameters", model->num_parameters()},
                      {"prefill_tokens_per_s", pp}, {"decode_tokens_per_s", tg},
                      {"weight_bytes_per_token", weight_bytes},
                      {"decode_bytes_per_s", tg * weight_bytes}, {"read_bytes_per_s", bw},
                      {"decode_bound_tokens_per_s", bw / weight_bytes},
                      {"fraction_of_bound", tg * weight_bytes / bw}};
  emit(j, a.json);
}

struct ContextBenchArgs {
  std::string config, model;
  std::vector<int> contexts{512, 4096, 16384};
  int decode_tokens = 32;
  MlaDecode mla_form = MlaDecode::Absorbed;
  bool json = false;
};

/// Prefill n tokens, then decode G more, per context n; counters read from the engine.
void run_bench_context(const CLI::App& cmd, const ContextBenchArgs& a) {
  const std::unique_ptr<Model> owned = bench_model(a.model, a.config, nullptr);
  Model& model = *owned;
  const std::string source = a.model.empty() ? a.config : a.model;
  apply_mixer_options(cmd, model, 0);
  const ModelConfig& cfg = model.config();
  const int V = cfg.vocab_size, G = a.decode_tokens;
  nlohmann::json rows = nlohmann::json::array();
  InferContext ctx(model);
  ctx.set_mla_decode(a.mla_form);
  {  // warm-up (first-touch of weights, panels and scratch), untimed
    ModelCache cache = model.new_cache(G + 1);
    std::vector<float> logits((size_t)V);
    std::vector<int> warm((size_t)G, 1);
    model.forward_cached(warm.data(), G, cache, ctx, logits.data(), /*last_only=*/true);
    model.forward_cached(warm.data(), 1, cache, ctx, logits.data(), true);
  }
  for (int n : a.contexts) {
    LLM0_CHECK(n > 0 && (long)n + G <= cfg.max_position_embeddings,
               "context {} + {} decoded tokens exceed max_position_embeddings {} of {}", n, G,
               cfg.max_position_embeddings, source);
    std::vector<int> prompt((size_t)n);
    for (int i = 0; i < n; ++i) prompt[(size_t)i] = (i * 37 + 11) % V;
    std::vector<float> logits((size_t)V);
    ModelCache cache = model.new_cache(n + G);
    ctx.reset_counters();
    auto t0 = Clock::now();
    model.forward_cached(prompt.data(), n, cache, ctx, logits.data(), /*last_only=*/true);
    const double prefill_s = seconds_since(t0);
    const WorkCounters pre = ctx.total_counters();
    const size_t cache_bytes_prefill = cache.bytes_in_use();
    ctx.reset_counters();
    int tok = 1;
    t0 = Clock::now();
    for (int i = 0; i < G; ++i) {
      model.forward_cached(&tok, 1, cache, ctx, logits.data(), true);
      tok = (int)(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
    const double decode_s = seconds_since(t0);
    const WorkCounters dec = ctx.total_counters();
    rows.push_back({{"context", n}, {"prefill_seconds", prefill_s},
                    {"prefill_qk_scores", pre.qk_scores}, {"cache_bytes_after_prefill", cache_bytes_prefill},
                    {"decode_seconds_per_token", decode_s / G},
                    {"decode_qk_scores_per_token", (double)dec.qk_scores / G},
                    {"decode_kv_bytes_read_per_token", (double)dec.kv_bytes_read / G},
                    {"decode_attention_macs_per_token", (double)dec.attn_macs / G},
                    {"cache_bytes_at_end", cache.bytes_in_use()}});
  }
  nlohmann::json j = {{"engine", "llm0"}, {"bench", "context"}, {"config", source},
                      {"threads", num_threads()}, {"sliding_window", cfg.sliding_window},
                      {"mla_decode", a.mla_form == MlaDecode::Absorbed ? "absorbed" : "expanded"},
                      {"decode_tokens", G}, {"contexts", rows}};
  if (a.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s (sliding_window %d), %d threads, %d decoded tokens per context\n",
              source.c_str(), cfg.sliding_window, num_threads(), G);
  std::printf("%9s %11s %15s %14s %13s %15s %15s %14s\n", "context", "prefill s", "prefill q·k",
              "decode ms/tok", "q·k per tok", "KV read B/tok", "attn MAC/tok", "cache bytes");
  for (const auto& r : rows)
    std::printf("%9d %11.3f %15.0f %14.3f %13.0f %15.0f %15.0f %14.0f\n", r["context"].get<int>(),
                r["prefill_seconds"].get<double>(), r["prefill_qk_scores"].get<double>(),
                1e3 * r["decode_seconds_per_token"].get<double>(),
                r["decode_qk_scores_per_token"].get<double>(),
                r["decode_kv_bytes_read_per_token"].get<double>(),
                r["decode_attention_macs_per_token"].get<double>(),
                r["cache_bytes_at_end"].get<double>());
}

}  // namespace

void register_bench(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Speed figures: training tokens/s and MFU; prefill/decode tokens/s");
  bench->require_subcommand(1);

  register_bench_peak(*bench);
  auto* tr = bench->add_subcommand("train", "Training tokens/s (forward+backward+AdamW) and MFU vs sgemm and the FMA peak");
  static TrainBenchArgs t;
  tr->add_option("--config", t.config, "Model config.json (random init)")->required();
  tr->add_option("--batch-size", t.batch, "Sequences per step")->check(positive_check());
  tr->add_option("--seq-len", t.seq, "Tokens per sequence")->check(positive_check());
  tr->add_option("--steps", t.steps, "Timed steps")->check(positive_check());
  tr->add_option("--precision", t.precision, "Matrix products: f32, bf16 or auto (as llm0 train)")
      ->check(CLI::IsMember({"auto", "f32", "bf16"}))->capture_default_str();
  tr->add_option("--warmup", t.warmup, "Untimed steps first")->check(non_negative_check());
  tr->add_option("--sgemm-n", t.sgemm_n, "Size of the square sgemm for the ceiling (0 = skip)")
      ->check(non_negative_check());
  tr->add_flag("--json", t.json, "One JSON object on stdout");
  add_threads_option(tr);
  tr->callback([] { run_bench_train(t); });

  auto* gen = bench->add_subcommand("generate", "Prefill and decode tokens/s with the KV cache");
  static GenBenchArgs g;
  gen->add_option("--model", g.model, "Checkpoint directory");
  gen->add_option("--config", g.config, "Model config.json (random init instead of --model)");
  gen->add_option("--prompt-tokens", g.prompt_tokens, "Prompt length (ppP)")->check(positive_check());
  gen->add_option("--gen-tokens", g.gen_tokens, "Decoded tokens (tgG)")->check(positive_check());
  gen->add_option("--repeats", g.repeats, "Timed repetitions (after one warm-up)")
      ->check(positive_check());
  gen->add_flag("--json", g.json, "One JSON object on stdout");
  add_mla_decode_option(gen, g.mla_form);
  add_dtype_options(gen, g.dtypes);
  add_threads_option(gen);
  gen->callback([gen] { run_bench_generate(*gen, g); });

  auto* ctx = bench->add_subcommand("context", "Decode cost per token as the context grows (full vs sliding layers)");
  static ContextBenchArgs c;
  ctx->add_option("--config", c.config, "Model config.json (random init)");
  ctx->add_option("--model", c.model, "Checkpoint directory (instead of --config)");
  add_positive_list_option(ctx, "--contexts", c.contexts, "Contexts to measure, e.g. 512,4096,16384");
  ctx->add_option("--decode-tokens", c.decode_tokens, "Tokens decoded after each prefill")
      ->check(positive_check());
  ctx->add_flag("--json", c.json, "One JSON object on stdout");
  add_mla_decode_option(ctx, c.mla_form);
  add_threads_option(ctx);
  ctx->callback([ctx] { run_bench_context(*ctx, c); });
}

}  // namespace llm0::cli
