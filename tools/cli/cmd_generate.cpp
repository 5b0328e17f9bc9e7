// `llm0 generate --model DIR --prompt TEXT [...]`: prefill + decode with the KV cache (or the
// naive recompute with --no-cache), streaming text to stdout as it is generated (never half a
// UTF-8 character), followed by a newline. The summary (token counts, stop reason, tokens/s,
// KV-cache bytes, work counters) goes to stderr, so stdout holds only generated text.
// --json: no streaming; one JSON object per prompt on stdout, one per line (JSON Lines), with the
// summary's figures (total / active parameters, tokens per expert per MoE layer) as fields.
// --prompts-file: every non-empty line is an independent prompt, run one after another.
// --prompt "": generation starts a new text: from BOS (<s>) when the tokenizer.json's
// post_processor adds one (Llama 2, llama2.c models), else from <|endoftext|>.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "infer/generator_io.h"
#include "ledger/kv_format.h"
#include "ledger/param_count.h"

namespace llm0::cli {

namespace {

struct GenerateArgs {
  std::string model, prompt, prompts_file;
  GenerateOptions opt;
  MlaDecode mla_form = MlaDecode::Absorbed;
  int delta_chunk = 0;  // --delta-chunk (0: the default)
  InferDtypes dtypes;
  bool no_cache = false, json = false, prompt_given = false;
};

// Non-empty lines of `path` (a trailing '\r' is dropped). Throws llm0::Error if unreadable/empty.
std::vector<std::string> read_prompts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "--prompts-file {} cannot be read", path);
  std::vector<std::string> prompts;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) prompts.push_back(line);
  }
  LLM0_CHECK(!prompts.empty(), "--prompts-file {} holds no non-empty line", path);
  return prompts;
}

std::string per_layer(const std::vector<WorkCounters>& layers, bool kv) {
  std::string s;
  for (const WorkCounters& c : layers)
    s += (s.empty() ? "" : " ") + std::to_string(kv ? c.kv_projected : c.qk_scores);
  return s;
}

// Parameters of the model, and for mixture-of-experts layers the tokens routed to each expert.
void print_parameters(const GenerateResult& r, const ModelConfig& c) {
  const ParamCount n = count_parameters(c);
  std::fprintf(stderr, "parameters:           %s total, %s active per token\n",
               format_thousands((uint64_t)n.total).c_str(), format_thousands((uint64_t)n.active).c_str());
  for (size_t il = 0; il < r.layer_counters.size(); ++il) {
    const std::vector<uint64_t>& t = r.layer_counters[il].expert_tokens;
    if (t.empty()) continue;
    std::string list;
    for (uint64_t v : t) list += (list.empty() ? "" : " ") + std::to_string(v);
    std::fprintf(stderr, "tokens per expert:    layer %zu: %s\n", il, list.c_str());
  }
}

void print_summary(const GenerateResult& r) {
  const size_t P = r.prompt_ids.size(), G = r.generated_ids.size();
  std::fprintf(stderr, "prompt tokens:        %zu\n", P);
  std::fprintf(stderr, "generated tokens:     %zu\n", G);
  std::fprintf(stderr, "stop reason:          %s%s%s\n", stop_reason_name(r.stop_reason),
               r.stop_reason == StopReason::stop_string ? " " : "",
               r.stop_reason == StopReason::stop_string ? ("\"" + r.stop_string + "\"").c_str() : "");
  if (r.stop_reason == StopReason::context_full)
    std::fprintf(stderr, "                      the context of %d tokens is full (positions end at "
                 "max_position_embeddings or --max-context; sliding-window layers hold fewer "
                 "tokens, but positions past the limit were never trained)\n", r.context);
  std::fprintf(stderr, "prefill:              %.1f tokens/s (%zu tokens in %.4f s)\n",
               r.prefill_tokens_per_second, P, r.prefill_seconds);
  std::fprintf(stderr, "decode:               %.1f tokens/s (%.4f s)\n",
               r.decode_tokens_per_second, r.decode_seconds);
  std::fprintf(stderr, "kv-cache bytes in use: %zu (context %d tokens)\n", r.kv_cache_bytes,
               r.context);
  std::fprintf(stderr, "K/V vectors projected: %llu (per layer: %s)\n",
               (unsigned long long)r.total_counters.kv_projected,
               per_layer(r.layer_counters, true).c_str());
  std::fprintf(stderr, "q·k scores:           %llu (per layer: %s)\n",
               (unsigned long long)r.total_counters.qk_scores,
               per_layer(r.layer_counters, false).c_str());
}

void run_generate(const CLI::App& cmd, GenerateArgs& a) {
  LLM0_CHECK(a.prompt_given != !a.prompts_file.empty(),
             "give exactly one of --prompt TEXT or --prompts-file FILE");
  a.opt.use_cache = !a.no_cache;
  // The library samples uniformly at temperature +inf; on the command line inf and nan are typos.
  LLM0_CHECK(std::isfinite(a.opt.sampler.temperature), "--temperature {} must be a finite number "
             "(0 = greedy)", a.opt.sampler.temperature);
  validate(a.opt.sampler);  // bad settings fail before a large model is loaded
  const std::vector<std::string> prompts =
      a.prompts_file.empty() ? std::vector<std::string>{a.prompt} : read_prompts(a.prompts_file);
  GenerationModel gm = load_generation_model(a.model);
  apply_mixer_options(cmd, *gm.model, a.delta_chunk);
  apply_infer_dtypes(*gm.model, a.dtypes, gm.stored);
  Generator gen(*gm.model, *gm.tokenizer);  // after the weights are final: its context packs them
  gen.context().set_mla_decode(a.mla_form);
  for (const std::string& prompt : prompts) {
    if (a.json) {
      const GenerateResult r = gen.generate(prompt, a.opt);
      nlohmann::json j = generate_result_json(r);
      const ParamCount n = count_parameters(gm.model->config());  // as the text summary prints
      j["total_parameters"] = (int64_t)n.total, j["active_parameters"] = (int64_t)n.active;
      std::printf("%s\n", j.dump().c_str());
    } else {
      const GenerateResult r = gen.generate(prompt, a.opt, [](std::string_view piece) {
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
      });
      std::printf("\n");
      std::fflush(stdout);
      print_summary(r);
      print_parameters(r, gm.model->config());
    }
    std::fflush(stdout);
  }
}

}  // namespace

void register_generate(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Generate text from a prompt (KV cache, sampling, streaming)");
  static GenerateArgs a;
  SamplerConfig& s = a.opt.sampler;
  cmd->add_option("--model", a.model, "Checkpoint directory, or a training run whose checkpoint/ is one")->required();
  cmd->add_option("--prompt", a.prompt, "Prompt text (\"\" = start a new text from BOS <s>, or <|endoftext|>)");
  cmd->add_option("--prompts-file", a.prompts_file, "File with one prompt per line (each run independently)");
  cmd->add_option("--max-new-tokens", a.opt.max_new_tokens, "Tokens to generate at most")->capture_default_str();
  cmd->add_option("--temperature", s.temperature, "0 = greedy; > 0 divides the logits")->capture_default_str();
  cmd->add_option("--top-k", s.top_k, "Keep the k most likely tokens (0 = off)")->capture_default_str();
  cmd->add_option("--top-p", s.top_p, "Nucleus mass in (0, 1] (1 = off)")->capture_default_str();
  cmd->add_option("--min-p", s.min_p, "Keep p >= min_p * p_max, in [0, 1] (0 = off)")->capture_default_str();
  cmd->add_option("--repetition-penalty", s.repetition_penalty, "> 0 (1 = off)")->capture_default_str();
  cmd->add_option("--seed", s.seed, "Sampling seed (same seed, same text)")->check(seed_check())->capture_default_str();
  cmd->add_option("--stop", a.opt.stop, "Stop string (repeatable); the text ends before it")
      ->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--chunk", a.opt.chunk, "Prefill chunk in tokens (0 = whole prompt)")->capture_default_str();
  cmd->add_flag("--no-cache", a.no_cache, "Recompute the whole sequence every step (naive method)");
  cmd->add_option("--max-context", a.opt.max_context, "Context in tokens (0 = max_position_embeddings)")->capture_default_str();
  cmd->add_flag("--json", a.json, "Print one JSON object per prompt instead of streaming text");
  add_mla_decode_option(cmd, a.mla_form);
  add_delta_chunk_option(cmd, a.delta_chunk);
  add_dtype_options(cmd, a.dtypes);
  add_threads_option(cmd);
  cmd->callback([cmd] {
    a.prompt_given = cmd->count("--prompt") > 0;
    run_generate(*cmd, a);
  });
}

}  // namespace llm0::cli
