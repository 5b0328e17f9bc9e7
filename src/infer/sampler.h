// Sampler: picks the next token from the logits of the last position.
// Pipeline (order of Hugging Face transformers' generate(): repetition penalty, then
// TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper, MinPLogitsWarper; llama.cpp's
// sampler chain does the same): penalty (CTRL, arXiv:1909.05858 eq. after 3.1) -> greedy if T = 0,
// else z = (l - max l) / T -> top-k -> top-p (nucleus, arXiv:1904.09751) -> min-p -> draw.
// Layouts: logits [V] float32; z [V] double (log-weights, max 0); ids = candidate token ids.
// Determinism: every tie is broken by the lower token id and the RNG is std::mt19937_64 (its output
// is fixed by the C++ standard) with our own bits-to-double, so a seed gives the same tokens everywhere.
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace llm0 {

/// Sampling settings; the defaults sample from the plain softmax. Field names follow HF
/// GenerationConfig (temperature, top_k, top_p, min_p, repetition_penalty).
struct SamplerConfig {
  double temperature = 1.0;         // 0 = greedy argmax; > 0 divides the logits
  int top_k = 0;                    // keep the k most likely tokens; 0 = off
  double top_p = 1.0;               // nucleus mass in (0, 1]; 1 = off
  double min_p = 0.0;               // keep p >= min_p * p_max, in [0, 1]; 0 = off
  double repetition_penalty = 1.0;  // > 0; 1 = off
  uint64_t seed = 0;                // seed of the std::mt19937_64 stream
};

/// Throws llm0::Error naming the field when: temperature < 0 or NaN, top_k < 0, top_p outside
/// (0, 1] (NaN included), min_p outside [0, 1], repetition_penalty <= 0 or NaN or infinite.
void validate(const SamplerConfig& cfg);

/// Repetition penalty (CTRL; HF RepetitionPenaltyLogitsProcessor, llama.cpp penalties): for each
/// distinct token t of history, once: logits[t] /= R if logits[t] > 0, else logits[t] *= R
/// (0 stays 0, -inf stays -inf). Computed in double, rounded to float; a finite logit stays
/// finite (l * R below the lowest float becomes -FLT_MAX, not -inf). logits: [V].
/// seen: scratch of >= V bytes, all 0 on entry and on return (lets a caller avoid allocation).
/// Throws llm0::Error if a history id is outside [0, V) or R <= 0.
void apply_repetition_penalty(float* logits, int V, std::span<const int> history, double R,
                              std::span<uint8_t> seen);
/// Same, with its own scratch (allocates V bytes).
void apply_repetition_penalty(float* logits, int V, std::span<const int> history, double R);

/// Greedy choice: index of the largest logit, the lowest such index on ties; NaN is skipped.
/// Throws llm0::Error if V <= 0 or every logit is -inf or NaN.
int argmax_lowest_id(const float* logits, int V);

/// Temperature step (HF TemperatureLogitsWarper, shifted by the max for stability): for every
/// logit that is not -inf or NaN, z[i] = (l_i - l_max) / T in double, exactly 0 for the maxima
/// (also when l_max = +inf, where every other token gets -inf), and ids[0..n) = those tokens in
/// ascending id order; other entries of z are left as they were. Returns n >= 1.
/// z, ids: [V]. Throws llm0::Error if T <= 0 or NaN, or if every logit is -inf or NaN.
int scale_logits(const float* logits, int V, double T, double* z, int* ids);

/// Top-k (llama.cpp top_k; HF TopKLogitsWarper, which would keep every tie at the k-th value):
/// reorders ids so that ids[0..m) are the m = min(k, n) tokens with the largest z, sorted by
/// (z descending, id ascending); returns m. k = 0 or k >= n: ids unchanged, returns n.
int top_k_filter(const double* z, std::span<int> ids, int k);

/// Top-p (nucleus; HF TopPLogitsWarper): keeps the shortest prefix of ids ordered by (z descending,
/// id ascending) whose probability mass (renormalised over ids) is at least p - 1e-6, and returns
/// its length m >= 1. ids[0..m) holds the kept ids in a deterministic order that is not necessarily
/// sorted (only the bucket of z where the mass crosses p gets sorted; see sampler.cpp); the rest
/// of ids is left unspecified. The 1e-6 slack keeps a p equal to a cumulative mass of tied tokens
/// (probs .4 .3 .3, p = .7) from flipping on float32 rounding of the logits.
/// p >= 1: ids unchanged, returns ids.size(). Requires p > 0 and a finite z in ids.
int top_p_filter(const double* z, std::span<int> ids, double p);

/// Min-p (HF MinPLogitsWarper; arXiv:2407.01082): keeps the ids with p_i >= min_p * p_max, i.e.
/// exp(z_i - z_max) >= min_p, in their current order; returns how many. min_p = 0 keeps all.
int min_p_filter(const double* z, std::span<int> ids, double min_p);

/// Draws one id from ids with probability exp(z_id) / sum exp(z), walking ids in their order:
/// returns the first id whose running sum exceeds u * total (u in [0, 1)); zero-weight ids are
/// never returned. Requires exp(z) > 0 for some id.
int draw_token(const double* z, std::span<const int> ids, double u);

/// Uniform double in [0, 1) from the top 53 bits of a 64-bit word: (bits >> 11) * 2^-53. Portable,
/// unlike std::uniform_real_distribution, whose algorithm differs between standard libraries.
double uniform_from_bits(uint64_t bits);

/// Stateful sampler: owns the RNG stream and scratch buffers (allocated once per vocab size).
class Sampler {
 public:
  /// Validates cfg (see validate) and seeds std::mt19937_64 with cfg.seed.
  explicit Sampler(const SamplerConfig& cfg);
  /// Picks the next token from logits [V]; logits are modified in place by the repetition penalty.
  /// history = tokens so far (prompt + generated). Temperature 0 draws nothing from the RNG; any
  /// other temperature draws exactly one 64-bit word per call.
  /// Throws llm0::Error if V <= 0, a history id is outside [0, V), or all logits are -inf/NaN.
  int sample(float* logits, int V, std::span<const int> history);
  const SamplerConfig& config() const { return cfg_; }

 private:
  SamplerConfig cfg_;
  std::mt19937_64 rng_;
  std::vector<double> z_;     // [V] scaled log-weights
  std::vector<int> ids_;      // [V] candidate ids
  std::vector<uint8_t> seen_; // [V] repetition-penalty scratch, kept all 0 between calls
};

}  // namespace llm0
