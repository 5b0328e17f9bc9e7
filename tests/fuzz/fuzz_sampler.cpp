// Fuzz harness: the sampler (infer/sampler.h) on arbitrary logits (NaN, ±inf, huge, subnormal)
// and arbitrary flag values (temperature, top_k, top_p, min_p, repetition_penalty, seed, as the
// CLI passes them). Properties: validate() refuses exactly the values sampler.h documents; a
// valid config gives a token in [0, V) whose logit is neither NaN nor -inf (never an empty
// candidate set), or an llm0::Error only when the logits leave nothing to sample (every one
// -inf or NaN); greedy (temperature 0, or top_k 1) picks argmax_lowest_id of the penalised
// logits; the same seed draws the same token.
#include <cmath>
#include <limits>
#include <vector>

#include "core/check.h"
#include "fuzz_util.h"
#include "infer/sampler.h"

using namespace llm0;

namespace {

bool unusable(float l) { return std::isnan(l) || l == -std::numeric_limits<float>::infinity(); }

// sampler.h's documented domain of each field.
bool documented_valid(const SamplerConfig& c) {
  return c.temperature >= 0 && c.top_k >= 0 && c.top_p > 0 && c.top_p <= 1 && c.min_p >= 0 &&
         c.min_p <= 1 && c.repetition_penalty > 0 && std::isfinite(c.repetition_penalty);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Reader in(data, size);
  SamplerConfig cfg;
  cfg.temperature = in.take<double>();
  cfg.top_k = in.take<int32_t>();
  cfg.top_p = in.take<double>();
  cfg.min_p = in.take<double>();
  cfg.repetition_penalty = in.take<double>();
  cfg.seed = in.take<uint64_t>();
  const uint8_t n_history = in.take<uint8_t>();
  std::vector<float> logits;
  while (in.left() >= sizeof(float) && logits.size() < 4096) logits.push_back(in.take<float>());
  const int V = static_cast<int>(logits.size());
  std::vector<int> history;
  for (int k = 0; k < n_history && V > 0; ++k) history.push_back((k * 7919 + n_history) % V);

  bool accepted = true;
  try {
    validate(cfg);
  } catch (const Error&) {
    accepted = false;
  }
  FUZZ_ASSERT(accepted == documented_valid(cfg), "validate() refuses exactly the documented values");
  if (!accepted || V == 0) return 0;

  bool all_unusable = true;
  for (float l : logits) all_unusable = all_unusable && unusable(l);
  Sampler sampler(cfg);
  std::vector<float> work = logits;
  int token = -1;
  try {
    token = sampler.sample(work.data(), V, history);
  } catch (const Error&) {
    FUZZ_ASSERT(all_unusable, "an error only when every logit is -inf or NaN");
    return 0;
  }
  FUZZ_ASSERT(!all_unusable, "no token from logits that are all -inf or NaN");
  FUZZ_ASSERT(token >= 0 && token < V, "token in [0, V)");
  FUZZ_ASSERT(!unusable(work[token]), "the token's (penalised) logit is usable");
  FUZZ_ASSERT(!unusable(logits[token]), "the token's logit is usable");
  // top_k 1 is greedy too while dividing by T cannot round two distinct logits' z to the same
  // value (T <= 1e30: a difference of two floats is >= 2^-149, / 1e30 stays above 2^-1074).
  if (cfg.temperature == 0 || (cfg.top_k == 1 && cfg.temperature <= 1e30))
    FUZZ_ASSERT(token == argmax_lowest_id(work.data(), V), "greedy = argmax, lowest id on ties");
  // The same seed draws the same token.
  std::vector<float> again = logits;
  FUZZ_ASSERT(Sampler(cfg).sample(again.data(), V, history) == token, "seeded draw is repeatable");
  return 0;
}
