// Checkpoint resolution, loading and JSON reporting for generation. See generator_io.h.
#include "infer/generator_io.h"

#include <filesystem>

#include "core/check.h"
#include "io/checkpoint.h"

namespace llm0 {

namespace fs = std::filesystem;

GenerationModel load_generation_model(const std::string& dir) {
  GenerationModel g;
  g.dir = resolve_checkpoint_dir(dir);
  const fs::path tok = fs::path(g.dir) / "tokenizer.json";
  LLM0_CHECK(fs::exists(tok), "{} is missing: generation needs the checkpoint's tokenizer",
             tok.string());
  g.model = load_model(g.dir, &g.stored);
  g.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(tok.string()));
  return g;
}

namespace {
// A JSON string of `bytes`; invalid UTF-8 becomes U+FFFD (dump's error_handler::replace), since
// nlohmann/json would throw when dumping it later.
nlohmann::json utf8_string(const std::string& bytes) {
  const nlohmann::json raw = bytes;
  return nlohmann::json::parse(raw.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}
}  // namespace

nlohmann::json generate_result_json(const GenerateResult& r) {
  using nlohmann::json;
  json layers = json::array();
  for (const WorkCounters& c : r.layer_counters) {
    json l = {{"kv_projected", c.kv_projected}, {"qk_scores", c.qk_scores}};
    if (!c.expert_tokens.empty()) l["expert_tokens"] = c.expert_tokens;
    layers.push_back(std::move(l));
  }
  json j = {
      {"prompt_tokens", r.prompt_ids.size()},
      {"generated_tokens", r.generated_ids.size()},
      {"prompt_ids", r.prompt_ids},
      {"generated_ids", r.generated_ids},
      {"stop_reason", stop_reason_name(r.stop_reason)},
      {"stop_string", r.stop_reason == StopReason::stop_string ? utf8_string(r.stop_string) : json()},
      {"context", r.context},
      {"prefill_seconds", r.prefill_seconds},
      {"decode_seconds", r.decode_seconds},
      {"prefill_tokens_per_second", r.prefill_tokens_per_second},
      {"decode_tokens_per_second", r.decode_tokens_per_second},
      {"kv_cache_bytes", r.kv_cache_bytes},
      {"kv_projected", r.total_counters.kv_projected},
      {"qk_scores", r.total_counters.qk_scores},
      {"layers", layers},
      {"text", utf8_string(r.text)},
  };
  return j;
}

}  // namespace llm0
