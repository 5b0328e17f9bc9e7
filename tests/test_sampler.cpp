// Tests for the sampler: each step against values worked out by hand or by an independent double
// softmax in the test, tie rules, seed determinism, a frequency test over 200,000 draws, no NaN for
// extreme inputs, and config validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "core/check.h"
#include "infer/sampler.h"

namespace {

using llm0::Sampler;
using llm0::SamplerConfig;
constexpr float kInf = std::numeric_limits<float>::infinity();

/// z = log(p / p_max) for given probabilities: the log-weights the filters take.
std::vector<double> log_weights(const std::vector<double>& p) {
  const double p_max = *std::max_element(p.begin(), p.end());
  std::vector<double> z;
  for (double x : p) z.push_back(std::log(x / p_max));
  return z;
}

/// Runs a filter on ids 0..n-1 and returns the kept ids in the order the filter left them.
template <class F>
std::vector<int> kept(int n, F filter) {
  std::vector<int> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  ids.resize(filter(std::span<int>(ids)));
  return ids;
}

SamplerConfig config(double T, int k = 0, double p = 1.0, double min_p = 0.0, double R = 1.0,
                     uint64_t seed = 0) {
  SamplerConfig c;
  c.temperature = T, c.top_k = k, c.top_p = p, c.min_p = min_p, c.repetition_penalty = R;
  c.seed = seed;
  return c;
}

int sample_once(Sampler& s, std::vector<float> logits, std::span<const int> history = {}) {
  return s.sample(logits.data(), int(logits.size()), history);
}

TEST(Sampler, ValidateNamesTheField) {
  const double nan = std::nan("");
  const std::vector<std::pair<SamplerConfig, std::string>> bad = {
      {config(-0.1), "temperature"}, {config(nan), "temperature"},
      {config(1, -1), "top_k"},      {config(1, 0, 0.0), "top_p"},
      {config(1, 0, 1.01), "top_p"}, {config(1, 0, nan), "top_p"},
      {config(1, 0, 1, -0.01), "min_p"}, {config(1, 0, 1, 1.5), "min_p"},
      {config(1, 0, 1, 0, 0.0), "repetition_penalty"}, {config(1, 0, 1, 0, -1), "repetition_penalty"},
  };
  for (const auto& [cfg, field] : bad) {
    try {
      Sampler s(cfg);
      ADD_FAILURE() << "no throw for " << field;
    } catch (const llm0::Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(llm0::validate(config(0, 0, 1.0, 0.0)));
  EXPECT_NO_THROW(llm0::validate(config(2, 5, 1e-9, 1.0, 0.5)));
}

TEST(Sampler, RepetitionPenaltyDividesPositiveMultipliesNegativeOnce) {
  std::vector<float> l = {2.0f, -2.0f, 0.0f, 3.0f, -kInf, 1.5f};
  const std::vector<int> history = {0, 1, 0, 2, 4, 0, 1};  // 0 and 1 repeat: penalised once
  llm0::apply_repetition_penalty(l.data(), 6, history, 2.0);
  EXPECT_EQ(l, (std::vector<float>{1.0f, -4.0f, 0.0f, 3.0f, -kInf, 1.5f}));
  std::vector<float> m = {2.0f, -2.0f, 0.7f};
  llm0::apply_repetition_penalty(m.data(), 3, std::vector<int>{0, 1, 2, 2}, 0.5);  // R < 1 rewards
  EXPECT_EQ(m, (std::vector<float>{4.0f, -1.0f, 1.4f}));
  // The scratch comes back all zero, and a bad id throws before any logit changes.
  std::vector<uint8_t> seen(3, 0);
  llm0::apply_repetition_penalty(m.data(), 3, std::vector<int>{1, 1}, 1.3, seen);
  EXPECT_EQ(seen, std::vector<uint8_t>(3, 0));
  const std::vector<float> before = m;
  EXPECT_THROW(llm0::apply_repetition_penalty(m.data(), 3, std::vector<int>{0, 3}, 2.0), llm0::Error);
  EXPECT_THROW(llm0::apply_repetition_penalty(m.data(), 3, std::vector<int>{-1}, 2.0), llm0::Error);
  EXPECT_EQ(m, before);
}

TEST(Sampler, HugePenaltyKeepsFiniteLogitsFinite) {
  // Found by tests/fuzz/fuzz_sampler.cpp (corpus/sampler/crash-penalty-overflow): R = 4e154 on a
  // vocabulary whose logits are all negative and all in the history turned each into -inf, and
  // sampling then failed with "all logits are -inf or NaN" although every logit was finite.
  std::vector<float> l = {-1.5e-23f, -1.5e30f, 2.0f, -kInf};
  llm0::apply_repetition_penalty(l.data(), 4, std::vector<int>{0, 1, 2, 3}, 4e154);
  EXPECT_EQ(l[0], -FLT_MAX);  // -1.5e-23 * 4e154 = -6e131: below the lowest float
  EXPECT_EQ(l[1], -FLT_MAX);
  EXPECT_EQ(l[2], 0.0f);      // 2 / 4e154 underflows to 0
  EXPECT_EQ(l[3], -kInf);     // -inf stays -inf
  Sampler greedy(config(0, 0, 1, 0, 4e154)), drawn(config(1e-300, 0, 0.3, 1e-308, 4e154, 41538));
  EXPECT_EQ(sample_once(greedy, {-1.5e-23f, -1.5e30f}, std::vector<int>{0, 1, 0, 1}), 0);  // tie: lower id
  EXPECT_EQ(sample_once(drawn, {-1.5e-23f, -1.5e30f}, std::vector<int>{0, 1, 0, 1}), 0);
}

TEST(Sampler, PenaltyChangesTheGreedyChoice) {
  Sampler s(config(0, 0, 1, 0, 1.5));
  const std::vector<int> history = {0};
  EXPECT_EQ(sample_once(s, {3.0f, 2.9f}, history), 1);    // 3 / 1.5 = 2 < 2.9
  EXPECT_EQ(sample_once(s, {-1.0f, -1.2f}, history), 1);  // -1 * 1.5 = -1.5 < -1.2
  Sampler plain(config(0));
  EXPECT_EQ(sample_once(plain, {3.0f, 2.9f}, history), 0);
}

TEST(Sampler, TemperatureZeroIsArgmaxWithLowestIdOnTies) {
  EXPECT_EQ(llm0::argmax_lowest_id(std::vector<float>{1, 5, 5, 2}.data(), 4), 1);
  EXPECT_EQ(llm0::argmax_lowest_id(std::vector<float>{-kInf, std::nanf(""), -3, -3}.data(), 4), 2);
  EXPECT_EQ(llm0::argmax_lowest_id(std::vector<float>{1, kInf, 2, kInf}.data(), 4), 1);
  EXPECT_THROW(llm0::argmax_lowest_id(std::vector<float>{-kInf, std::nanf("")}.data(), 2), llm0::Error);
  for (uint64_t seed = 0; seed < 5; ++seed) {
    Sampler s(config(0, 3, 0.5, 0.2, 1.0, seed));  // filters are irrelevant when greedy
    EXPECT_EQ(sample_once(s, {0.5f, 7.25f, -1.0f, 7.25f, 7.0f}), 1);
  }
}

TEST(Sampler, TopKOneEqualsGreedyForAnyTemperatureAndSeed) {
  std::mt19937_64 rng(1);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (double T : {1e-8, 0.3, 1.0, 7.0, 1e8}) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      std::vector<float> l(37);
      for (float& x : l) x = normal(rng);
      if (seed % 4 == 0) l[30] = l[5] = 50.0f;  // tie at the max: lower id wins
      Sampler s(config(T, 1, 1, 0, 1, seed));
      ASSERT_EQ(sample_once(s, l), llm0::argmax_lowest_id(l.data(), 37)) << T << " " << seed;
    }
  }
}

TEST(Sampler, ScaleLogitsShiftsByMaxAndDropsMinusInf) {
  std::vector<double> z(4, 99.0);
  std::vector<int> ids(4, -1);
  const std::vector<float> l = {1.0f, 3.0f, -kInf, 2.0f};
  ASSERT_EQ(llm0::scale_logits(l.data(), 4, 2.0, z.data(), ids.data()), 3);
  EXPECT_EQ(std::vector<int>(ids.begin(), ids.begin() + 3), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(z[0], -1.0);
  EXPECT_EQ(z[1], 0.0);
  EXPECT_EQ(z[3], -0.5);
  const std::vector<float> inf = {kInf, 1.0f, kInf};  // +inf maxima share all the mass
  ASSERT_EQ(llm0::scale_logits(inf.data(), 3, 1.0, z.data(), ids.data()), 3);
  EXPECT_EQ(z[0], 0.0);
  EXPECT_EQ(z[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(z[2], 0.0);
}

TEST(Sampler, TopKKeepsLargestWithLowerIdOnBoundaryTies) {
  const std::vector<double> z = {-1, 0, -2, -1, -1};
  auto top_k = [&](int k) { return kept(5, [&](std::span<int> ids) { return llm0::top_k_filter(z.data(), ids, k); }); };
  EXPECT_EQ(top_k(1), (std::vector<int>{1}));
  EXPECT_EQ(top_k(2), (std::vector<int>{1, 0}));
  EXPECT_EQ(top_k(3), (std::vector<int>{1, 0, 3}));
  EXPECT_EQ(top_k(5).size(), 5u);
  EXPECT_EQ(top_k(0).size(), 5u);
}

TEST(Sampler, TopPKeepsSmallestSetWithTiesByLowerId) {
  auto top_p = [](const std::vector<double>& probs, double p) {
    const std::vector<double> z = log_weights(probs);
    std::vector<int> ids = kept(int(z.size()), [&](std::span<int> ids) { return llm0::top_p_filter(z.data(), ids, p); });
    std::sort(ids.begin(), ids.end());  // the kept order is deterministic but unspecified
    return ids;
  };
  const std::vector<double> probs = {0.4, 0.3, 0.3};
  EXPECT_EQ(top_p(probs, 0.4), (std::vector<int>{0}));
  EXPECT_EQ(top_p(probs, 0.5), (std::vector<int>{0, 1}));
  EXPECT_EQ(top_p(probs, 0.7), (std::vector<int>{0, 1}));
  EXPECT_EQ(top_p(probs, 0.71), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(top_p(probs, 1.0).size(), 3u);
  EXPECT_EQ(top_p(probs, 1e-12), (std::vector<int>{0}));  // never empty
  EXPECT_EQ(top_p({0.3, 0.3, 0.4}, 0.5), (std::vector<int>{0, 2}));
  EXPECT_EQ(top_p(probs, 0.4 + 5e-7), (std::vector<int>{0}));     // inside the 1e-6 slack
  EXPECT_EQ(top_p(probs, 0.4 + 2e-6), (std::vector<int>{0, 1}));  // outside it
  // A vocabulary larger than the first sorted block (64): the nucleus needs 100 of 200 tokens.
  std::vector<double> flat(200, 1.0);
  EXPECT_EQ(top_p(flat, 0.5).size(), 100u);
  EXPECT_EQ(top_p(flat, 0.5).back(), 99);
}

/// Brute force: sort everything by (z desc, id asc), cut at mass >= p - 1e-6; returns sorted ids.
std::vector<int> top_p_reference(const std::vector<double>& z, double p) {
  std::vector<int> order(z.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
  double total = 0, cum = 0;
  for (double x : z) total += std::exp(x);
  size_t m = 0;
  while (m < order.size() && cum < (p - 1e-6) * total) cum += std::exp(z[order[m++]]);
  order.resize(std::max<size_t>(m, 1));
  std::sort(order.begin(), order.end());
  return order;
}

TEST(Sampler, TopPMatchesBruteForceOnLargeVocabularies) {
  std::mt19937_64 rng(3);
  int cases = 0;
  for (double scale : {0.01, 0.5, 3.0, 40.0}) {  // flat .. peaked; 40 puts tokens below bucket 0
    for (int V : {7, 300, 20000}) {
      std::normal_distribution<double> normal(0.0, scale);
      std::vector<double> z(V);
      for (double& x : z) x = std::round(normal(rng) * 8) / 8;  // coarse grid: many exact ties
      const double z_max = *std::max_element(z.begin(), z.end());
      for (double& x : z) x -= z_max;
      for (double p : {1e-9, 0.1, 0.5, 0.9, 0.999}) {
        std::vector<int> ids(V);
        std::iota(ids.begin(), ids.end(), 0);
        std::shuffle(ids.begin(), ids.end(), rng);  // input order must not matter
        ids.resize(llm0::top_p_filter(z.data(), ids, p));
        std::sort(ids.begin(), ids.end());
        ASSERT_EQ(ids, top_p_reference(z, p)) << "scale " << scale << " V " << V << " p " << p;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 60);
}

TEST(Sampler, MinPKeepsTokensAboveFractionOfMax) {
  auto min_p = [](const std::vector<double>& probs, double m) {
    const std::vector<double> z = log_weights(probs);
    return kept(int(z.size()), [&](std::span<int> ids) { return llm0::min_p_filter(z.data(), ids, m); });
  };
  const std::vector<double> probs = {0.15, 0.5, 0.1, 0.25};
  EXPECT_EQ(min_p(probs, 0.35), (std::vector<int>{1, 3}));  // threshold .175
  EXPECT_EQ(min_p(probs, 0.25), (std::vector<int>{0, 1, 3}));  // threshold .125
  EXPECT_EQ(min_p(probs, 1.0), (std::vector<int>{1}));
  EXPECT_EQ(min_p(probs, 0.0).size(), 4u);
  EXPECT_EQ(min_p({0.4, 0.2, 0.4}, 1.0), (std::vector<int>{0, 2}));  // tied maxima both stay
  const std::vector<double> z = {0.0, std::log(0.25), -2.0};  // p_1 / p_max == min_p exactly: kept
  EXPECT_EQ(kept(3, [&](std::span<int> ids) { return llm0::min_p_filter(z.data(), ids, std::exp(z[1])); }),
            (std::vector<int>{0, 1}));
}

TEST(Sampler, DrawWalksCumulativeMass) {
  const std::vector<double> z = log_weights({0.25, 0.25, 0.5});
  const std::vector<int> ids = {0, 1, 2};
  EXPECT_EQ(llm0::draw_token(z.data(), ids, 0.0), 0);
  EXPECT_EQ(llm0::draw_token(z.data(), ids, 0.2), 0);
  EXPECT_EQ(llm0::draw_token(z.data(), ids, 0.3), 1);
  EXPECT_EQ(llm0::draw_token(z.data(), ids, 0.6), 2);
  EXPECT_EQ(llm0::draw_token(z.data(), ids, llm0::uniform_from_bits(~0ull)), 2);
  const std::vector<double> uniform(4, 0.0);  // u on a boundary belongs to the next token
  EXPECT_EQ(llm0::draw_token(uniform.data(), std::vector<int>{0, 1, 2, 3}, 0.25), 1);
  EXPECT_EQ(llm0::draw_token(uniform.data(), std::vector<int>{3, 2, 1, 0}, 0.75), 0);
  const std::vector<double> zero_first = {-std::numeric_limits<double>::infinity(), 0.0};
  EXPECT_EQ(llm0::draw_token(zero_first.data(), std::vector<int>{0, 1}, 0.0), 1);
  EXPECT_EQ(llm0::uniform_from_bits(0), 0.0);
  EXPECT_EQ(llm0::uniform_from_bits(1ull << 11), 0x1.0p-53);
  EXPECT_EQ(llm0::uniform_from_bits(~0ull), 1.0 - 0x1.0p-53);
}

std::vector<int> run_sequence(const SamplerConfig& cfg, int steps) {
  Sampler s(cfg);
  std::vector<int> out;
  std::vector<float> base(50);
  for (int i = 0; i < 50; ++i) base[i] = float(std::sin(i * 1.7));
  for (int t = 0; t < steps; ++t) out.push_back(sample_once(s, base, out));
  return out;
}

TEST(Sampler, SameSeedSameSequenceDifferentSeedDifferent) {
  const SamplerConfig a = config(0.9, 30, 0.95, 0.05, 1.1, 1234);
  SamplerConfig b = a;
  b.seed = 1235;
  const std::vector<int> s1 = run_sequence(a, 200), s2 = run_sequence(a, 200), s3 = run_sequence(b, 200);
  EXPECT_EQ(s1, s2);
  EXPECT_NE(s1, s3);
  EXPECT_GT(std::set<int>(s1.begin(), s1.end()).size(), 10u);  // it really samples
}

/// Draws n tokens and checks each frequency against `expect` within 4 standard errors.
void expect_frequencies(const SamplerConfig& cfg, const std::vector<float>& logits,
                        const std::vector<double>& expect, int n = 200000) {
  Sampler s(cfg);
  std::vector<int> count(logits.size(), 0);
  std::vector<float> l(logits.size());
  for (int i = 0; i < n; ++i) {
    l = logits;
    ++count[s.sample(l.data(), int(l.size()), {})];
  }
  for (size_t v = 0; v < logits.size(); ++v) {
    const double f = double(count[v]) / n, p = expect[v];
    const double se = std::sqrt(std::max(p * (1 - p), 1e-12) / n);
    EXPECT_NEAR(f, p, 4 * se + 1e-12) << "token " << v;
  }
}

/// Reference in double: softmax(l / T), top-k, top-p, renormalised (ids sorted by probability).
std::vector<double> reference_probs(const std::vector<float>& l, double T, int k, double p) {
  std::vector<double> q(l.size());
  double sum = 0;
  for (size_t i = 0; i < l.size(); ++i) sum += (q[i] = std::exp(l[i] / T));
  for (double& x : q) x /= sum;
  std::vector<int> order(l.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return q[a] > q[b]; });
  if (k > 0) order.resize(std::min<size_t>(k, order.size()));
  double mass_k = 0;
  for (int i : order) mass_k += q[i];
  std::vector<double> out(l.size(), 0.0);
  double cum = 0, kept_mass = 0;
  for (int i : order) {
    out[i] = q[i], kept_mass += q[i], cum += q[i] / mass_k;
    if (cum >= p) break;
  }
  for (double& x : out) x /= kept_mass;
  return out;
}

TEST(Sampler, FrequenciesMatchSoftmaxAlsoAfterTruncation) {
  const std::vector<float> l = {1.0f, 2.0f, 0.5f, -1.0f, 3.0f, 1.7f};
  expect_frequencies(config(1.0, 0, 1, 0, 1, 11), l, reference_probs(l, 1.0, 0, 1.0));
  expect_frequencies(config(0.7, 0, 1, 0, 1, 12), l, reference_probs(l, 0.7, 0, 1.0));
  expect_frequencies(config(2.5, 4, 1, 0, 1, 13), l, reference_probs(l, 2.5, 4, 1.0));
  // top-p 0.8 at T = 1.5 keeps 4 tokens (cumulative .41 .62 .79 .89), renormalised.
  const std::vector<double> nucleus = reference_probs(l, 1.5, 0, 0.8);
  ASSERT_EQ(std::count(nucleus.begin(), nucleus.end(), 0.0), 2);
  expect_frequencies(config(1.5, 0, 0.8, 0, 1, 14), l, nucleus);
  expect_frequencies(config(1.5, 5, 0.8, 0, 1, 15), l, reference_probs(l, 1.5, 5, 0.8));
  // min-p 0.3 at T = 1: keeps p >= 0.3 p_max, i.e. logits >= 3 + ln 0.3 = 1.796 -> {1, 4}.
  const std::vector<double> two = reference_probs(l, 1.0, 2, 1.0);
  expect_frequencies(config(1.0, 0, 1, 0.3, 1, 16), l, two);
}

TEST(Sampler, TopPTiesEndToEnd) {
  const std::vector<float> l = {std::log(0.4f), std::log(0.3f), std::log(0.3f)};
  expect_frequencies(config(1.0, 0, 0.5, 0, 1, 3), l, {4.0 / 7, 3.0 / 7, 0.0}, 50000);
  expect_frequencies(config(1.0, 0, 0.4, 0, 1, 4), l, {1.0, 0.0, 0.0}, 2000);
}

TEST(Sampler, NoNaNForExtremeInputs) {
  const float big = 1e30f;
  expect_frequencies(config(1.0, 0, 1, 0, 1, 5), {big, big, -big}, {0.5, 0.5, 0.0}, 20000);
  expect_frequencies(config(1e-8, 0, 1, 0, 1, 6), {1.0f, 1.0001f, 0.5f}, {0, 1, 0}, 2000);
  expect_frequencies(config(1e8, 0, 1, 0, 1, 7), {big, 0.0f, -50.0f}, {1.0, 0, 0}, 2000);
  expect_frequencies(config(1e8, 0, 1, 0, 1, 8), {3.0f, 0.0f, -50.0f}, {1 / 3., 1 / 3., 1 / 3.}, 30000);
  expect_frequencies(config(1.0, 0, 1, 0, 1, 9), {kInf, 1.0f, kInf}, {0.5, 0, 0.5}, 20000);
  const std::vector<std::vector<float>> inputs = {
      {-kInf, -kInf, 4.0f, -kInf}, {big, -big, big, 0.0f}, {0, 0, 0, 0},
      {-big, -big, -big, -big}, {std::nanf(""), -kInf, -1e-30f, kInf}, {1e-38f, -1e-38f, 0, 88.7f}};
  int checked = 0;
  for (double T : {1e-8, 0.5, 1.0, 1e8, double(kInf)})
    for (int k : {0, 1, 2, 1000})
      for (double p : {1e-9, 0.3, 1.0})
        for (double m : {0.0, 0.5, 1.0})
          for (double R : {0.5, 1.0, 3.0})
            for (const auto& in : inputs) {
              Sampler s(config(T, k, p, m, R, uint64_t(checked)));
              const std::vector<int> history = {0, 3};
              const int t = sample_once(s, in, history);
              ASSERT_TRUE(t >= 0 && t < 4 && !std::isnan(in[t]) && in[t] != -kInf) << checked;
              ++checked;
            }
  EXPECT_EQ(checked, 5 * 4 * 3 * 3 * 3 * 6);
}

TEST(Sampler, BadInputsThrow) {
  Sampler s(config(1.0));
  std::vector<float> l = {-kInf, -kInf};
  EXPECT_THROW(s.sample(l.data(), 2, {}), llm0::Error);
  EXPECT_THROW(s.sample(l.data(), 0, {}), llm0::Error);
  std::vector<float> ok = {1.0f, 2.0f};
  Sampler r(config(1.0, 0, 1, 0, 1.2));
  EXPECT_THROW(r.sample(ok.data(), 2, std::vector<int>{2}), llm0::Error);
}

}  // namespace
