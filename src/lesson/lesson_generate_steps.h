// `llm0 lesson generate-steps`: generation with the KV cache on a loaded model, token by token —
// each token, the bytes the engine's cache holds after it (ModelCache::bytes_in_use) and the work
// counters (K/V vectors projected, q·k scores, summed over layers since the start). Runs the
// Generator of `llm0 generate` (src/infer/generator.h): prefill the prompt, then one token at a
// time; the last sampled token is never fed back, so the cache holds P + G − 1 tokens at the end.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "infer/generator_io.h"

namespace llm0::lesson {

/// What to generate.
struct GenerateStepsOptions {
  std::string text;          ///< the prompt (encoded with the tokenizer's special tokens)
  int tokens = 32;           ///< tokens to generate (≥ 1; fewer if <|endoftext|> or the context ends)
  double temperature = 0;    ///< 0 = greedy (argmax); > 0 sampled (top-k off)
  uint64_t seed = 1;         ///< sampler seed
};

/// The run as JSON (docs/explore-api.md "generate-steps"). `model_name` names the model. Throws
/// llm0::Error what Generator::start throws (prompt longer than the context, bad settings) and
/// for tokens < 1; Cancelled (core/cancel.h) before a token when the calling thread's work was
/// abandoned.
nlohmann::json generate_steps_json(GenerationModel& m, const std::string& model_name,
                                   const GenerateStepsOptions& opt);

}  // namespace llm0::lesson
