// Sampler: repetition penalty, temperature, top-k, top-p, min-p and a seeded draw.
// Sources: CTRL (arXiv:1909.05858) for the penalty, nucleus sampling (arXiv:1904.09751), min-p
// (arXiv:2407.01082); behaviour matches HF transformers' logits processors and llama.cpp's sampler
// chain, with every tie broken by the lower id. Work is O(V) plus sorting only what top-k/top-p keep.
#include "infer/sampler.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/check.h"

namespace llm0 {

namespace {

/// Total order of candidates: larger z first, then lower id (the tie rule of every step).
struct ByWeightThenId {
  const double* z;
  bool operator()(int a, int b) const { return z[a] > z[b] || (z[a] == z[b] && a < b); }
};

// Top-p buckets: z - z_max in [-kBucketRange, 0] split evenly, everything lower in bucket 0.
constexpr int kBuckets = 1024;
constexpr double kBucketRange = 64.0;  // exp(-64) ~ 1.6e-28 of the top token's probability

/// Bucket of a log-weight relative to the max (d <= 0); non-decreasing in d.
int bucket_of(double d) {
  if (!(d > -kBucketRange)) return 0;  // also catches NaN
  return std::min(kBuckets - 1, static_cast<int>((d + kBucketRange) * (kBuckets / kBucketRange)));
}

double sum_weights(const double* z, std::span<const int> ids) {
  double total = 0.0;
  for (int id : ids) total += std::exp(z[id]);
  return total;
}

/// Moves the ids satisfying keep to the front, in their original order (a Lomuto pass, written
/// out so the order of the rest is ours too, not the standard library's); returns how many.
template <class Keep>
size_t select_front(std::span<int> ids, Keep keep) {
  size_t n = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (keep(ids[i])) std::swap(ids[n++], ids[i]);
  }
  return n;
}

/// Sorts ids by ByWeightThenId only as far as needed (blocks growing 4x: nth_element selects the
/// next block, then it is sorted) and returns the length of the shortest prefix at which
/// cum + sum exp(z - z_max) >= target; all of ids if rounding never gets there. Returns 0 only if
/// cum >= target already and may_be_empty.
size_t sorted_prefix_to_mass(const double* z, double z_max, std::span<int> ids, double cum,
                             double target, bool may_be_empty) {
  if (may_be_empty && cum >= target) return 0;
  const ByWeightThenId cmp{z};
  const size_t n = ids.size();
  size_t sorted = 0, block = std::min<size_t>(n, 64);
  while (true) {
    if (block < n) std::nth_element(ids.begin() + sorted, ids.begin() + block, ids.end(), cmp);
    std::sort(ids.begin() + sorted, ids.begin() + block, cmp);
    for (size_t i = sorted; i < block; ++i) {
      cum += std::exp(z[ids[i]] - z_max);
      if (cum >= target) return i + 1;
    }
    if (block == n) return n;
    sorted = block;
    block = std::min(n, 4 * block);
  }
}

}  // namespace

void validate(const SamplerConfig& cfg) {
  LLM0_CHECK(cfg.temperature >= 0.0, "temperature={} must be >= 0 (0 = greedy)", cfg.temperature);
  LLM0_CHECK(cfg.top_k >= 0, "top_k={} must be >= 0 (0 = off)", cfg.top_k);
  LLM0_CHECK(cfg.top_p > 0.0 && cfg.top_p <= 1.0, "top_p={} must be in (0, 1]", cfg.top_p);
  LLM0_CHECK(cfg.min_p >= 0.0 && cfg.min_p <= 1.0, "min_p={} must be in [0, 1]", cfg.min_p);
  LLM0_CHECK(cfg.repetition_penalty > 0.0 && std::isfinite(cfg.repetition_penalty),
             "repetition_penalty={} must be finite and > 0 (1 = off)", cfg.repetition_penalty);
}

void apply_repetition_penalty(float* logits, int V, std::span<const int> history, double R,
                              std::span<uint8_t> seen) {
  LLM0_CHECK(R > 0.0, "repetition_penalty={} must be > 0", R);
  LLM0_CHECK(seen.size() >= static_cast<size_t>(V), "seen scratch has {} bytes, need V={}",
             seen.size(), V);
  for (size_t i = 0; i < history.size(); ++i) {  // check all ids before touching logits
    LLM0_CHECK(history[i] >= 0 && history[i] < V,
               "history token id {} at position {} is outside [0, V={})", history[i], i, V);
  }
  // Penalise each distinct token once (HF gathers all scores before scattering them back).
  for (int t : history) {
    if (seen[t]) continue;
    seen[t] = 1;
    const double l = logits[t];
    const double penalised = l > 0.0 ? l / R : l * R;
    // A finite logit stays finite: a large R would round l * R to -inf in float, and a vocabulary
    // of such tokens would leave nothing to sample (found by tests/fuzz/fuzz_sampler.cpp).
    logits[t] = std::isfinite(l) ? static_cast<float>(std::max(penalised, double(-FLT_MAX)))
                                 : static_cast<float>(penalised);
  }
  for (int t : history) seen[t] = 0;  // leave the scratch all 0 for the next call
}

void apply_repetition_penalty(float* logits, int V, std::span<const int> history, double R) {
  std::vector<uint8_t> seen(static_cast<size_t>(std::max(V, 0)), 0);
  apply_repetition_penalty(logits, V, history, R, seen);
}

int argmax_lowest_id(const float* logits, int V) {
  LLM0_CHECK(V > 0, "vocab size V={} must be > 0", V);
  int best = -1;
  for (int i = 0; i < V; ++i) {
    const float l = logits[i];
    if (std::isnan(l) || l == -std::numeric_limits<float>::infinity()) continue;
    if (best < 0 || l > logits[best]) best = i;  // strict '>' keeps the lowest id on ties
  }
  LLM0_CHECK(best >= 0, "all {} logits are -inf or NaN; nothing to sample", V);
  return best;
}

int scale_logits(const float* logits, int V, double T, double* z, int* ids) {
  LLM0_CHECK(T > 0.0, "temperature={} must be > 0 here (0 is greedy)", T);
  const int best = argmax_lowest_id(logits, V);  // also rejects V <= 0 and all -inf/NaN
  const double l_max = logits[best];
  const bool max_is_inf = std::isinf(l_max);
  int n = 0;
  for (int i = 0; i < V; ++i) {
    const double l = logits[i];
    if (std::isnan(l) || l == -std::numeric_limits<double>::infinity()) continue;
    // Subtracting the max first keeps exp() in range for logits like 1e30 or T like 1e-8.
    if (l == l_max) z[i] = 0.0;
    else z[i] = max_is_inf ? -std::numeric_limits<double>::infinity() : (l - l_max) / T;
    ids[n++] = i;
  }
  return n;
}

int top_k_filter(const double* z, std::span<int> ids, int k) {
  const int n = static_cast<int>(ids.size());
  if (k <= 0 || k >= n) return n;
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), ByWeightThenId{z});
  return k;
}

int top_p_filter(const double* z, std::span<int> ids, double p) {
  if (p >= 1.0 || ids.size() <= 1) return static_cast<int>(ids.size());
  // Bucket the mass by z. Bucket order agrees with the sort order, so every token of a bucket
  // above the one where the cumulative mass crosses the target is kept, every token below is
  // dropped, and only the crossing bucket needs sorting (not a flat tail of 10^5 tokens).
  double z_max = -std::numeric_limits<double>::infinity();
  for (int id : ids) z_max = std::max(z_max, z[id]);
  LLM0_CHECK(std::isfinite(z_max), "top_p_filter: no token has a finite log-weight (max {})", z_max);
  std::array<double, kBuckets> bucket_mass{};
  double total = 0.0;
  for (int id : ids) {
    const double w = std::exp(z[id] - z_max);
    total += w;
    bucket_mass[bucket_of(z[id] - z_max)] += w;
  }
  const double target = (p - 1e-6) * total;
  int cut = kBuckets - 1;
  for (double above = 0.0; cut > 0 && above + bucket_mass[cut] < target;)
    above += bucket_mass[cut--];
  auto bucket = [&](int id) { return bucket_of(z[id] - z_max); };
  const size_t above = select_front(ids, [&](int id) { return bucket(id) > cut; });
  const std::span<int> crossing = ids.subspan(above);
  const size_t in_cut = select_front(crossing, [&](int id) { return bucket(id) == cut; });
  double cum = 0.0;
  for (size_t i = 0; i < above; ++i) cum += std::exp(z[ids[i]] - z_max);
  const size_t from_cut = sorted_prefix_to_mass(z, z_max, crossing.first(in_cut), cum, target,
                                                /*may_be_empty=*/above > 0);
  return static_cast<int>(above + from_cut);
}

int min_p_filter(const double* z, std::span<int> ids, double min_p) {
  if (min_p <= 0.0) return static_cast<int>(ids.size());
  double z_max = -std::numeric_limits<double>::infinity();
  for (int id : ids) z_max = std::max(z_max, z[id]);
  int kept = 0;
  for (int id : ids) {
    if (z[id] == z_max || std::exp(z[id] - z_max) >= min_p) ids[kept++] = id;
  }
  return kept;
}

int draw_token(const double* z, std::span<const int> ids, double u) {
  LLM0_CHECK(!ids.empty(), "draw_token: no candidate tokens");
  const double target = u * sum_weights(z, ids);
  double cum = 0.0;
  int last_positive = -1;
  for (int id : ids) {
    const double w = std::exp(z[id]);
    if (w <= 0.0) continue;
    cum += w;
    last_positive = id;
    if (cum > target) return id;
  }
  LLM0_CHECK(last_positive >= 0, "draw_token: every candidate has probability 0");
  return last_positive;  // only reached if rounding left cum <= target at the very end
}

double uniform_from_bits(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

Sampler::Sampler(const SamplerConfig& cfg) : cfg_(cfg), rng_(cfg.seed) { validate(cfg_); }

int Sampler::sample(float* logits, int V, std::span<const int> history) {
  LLM0_CHECK(V > 0, "vocab size V={} must be > 0", V);
  if (ids_.size() < static_cast<size_t>(V)) {  // grow once per vocab size, not per call
    z_.resize(V);
    ids_.resize(V);
    seen_.resize(V, 0);
  }
  if (cfg_.repetition_penalty != 1.0)
    apply_repetition_penalty(logits, V, history, cfg_.repetition_penalty, seen_);
  if (cfg_.temperature == 0.0) return argmax_lowest_id(logits, V);

  double* z = z_.data();
  int n = scale_logits(logits, V, cfg_.temperature, z, ids_.data());
  n = top_k_filter(z, std::span<int>(ids_.data(), n), cfg_.top_k);
  n = top_p_filter(z, std::span<int>(ids_.data(), n), cfg_.top_p);
  n = min_p_filter(z, std::span<int>(ids_.data(), n), cfg_.min_p);
  return draw_token(z, std::span<const int>(ids_.data(), n), uniform_from_bits(rng_()));
}

}  // namespace llm0
