// The trainer's count baselines (src/train/baselines.h): the bigram against counts taken another
// way (std::map of pairs, the formula evaluated term by term), closed forms on a repeating
// pattern, and the unseen-context fallback.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/check.h"
#include "train/baselines.h"

using llm0::bigram_cross_entropy;
using llm0::unigram_cross_entropy;

namespace {
// Witten-Bell, written out from its definition over ordered maps.
double reference_bigram(const std::vector<int32_t>& train, const std::vector<int32_t>& val, int V) {
  std::map<int32_t, double> unigram;
  for (int32_t t : train) unigram[t] += 1;
  const auto p_uni = [&](int32_t b) {
    return (unigram.count(b) ? unigram[b] + 1 : 1.0) / ((double)train.size() + V);
  };
  std::map<std::pair<int32_t, int32_t>, double> pairs;  // (previous, next) -> count
  for (size_t i = 0; i + 1 < train.size(); ++i) pairs[{train[i], train[i + 1]}] += 1;
  double h = 0;
  for (size_t i = 0; i + 1 < val.size(); ++i) {
    const int32_t a = val[i], b = val[i + 1];
    double c_a = 0, c_ab = 0;
    std::set<int32_t> followers;
    for (const auto& [ab, c] : pairs)
      if (ab.first == a) c_a += c, followers.insert(ab.second), c_ab += ab.second == b ? c : 0;
    const double t_a = (double)followers.size();
    h -= std::log(c_a == 0 ? p_uni(b) : (c_ab + t_a * p_uni(b)) / (c_a + t_a));
  }
  return h / (double)(val.size() - 1);
}
}  // namespace

TEST(TrainBaselines, BigramMatchesCountsTakenAnotherWay) {
  // Asymmetric pairs (3 -> 1 often, 1 -> 3 once), a token only ever last (6: no context counts),
  // validation pairs unseen in train (2 -> 5) and ids never seen (7).
  const std::vector<int32_t> train{0, 3, 1, 2, 3, 1, 1, 4, 3, 1, 0, 2, 5, 3, 1, 3, 6};
  const std::vector<int32_t> val{3, 1, 2, 5, 6, 0, 3, 7, 1, 3, 1, 4};
  const double got = bigram_cross_entropy(train, val, 8);
  // Tolerance: both sides sum n <= 12 logs of probabilities >= 1/64 in double (|ln p| <= 4.2, each
  // term exact to ~1 ulp = 2.2e-16 relative), so orders of summation differ by <= 12 * 4.2 * 2.2e-16
  // ~ 1.1e-14 before dividing by n; 1e-12 leaves 100x that, while a wrong count moves H by > 1e-3.
  // The closed forms below use the same bound.
  EXPECT_NEAR(got, reference_bigram(train, val, 8), 1e-12);
  // The context is the previous token, not the next: reversed pairs score otherwise.
  const std::vector<int32_t> rev_train(train.rbegin(), train.rend()), rev_val(val.rbegin(), val.rend());
  EXPECT_GT(std::fabs(got - bigram_cross_entropy(rev_train, rev_val, 8)), 0.05);
}

TEST(TrainBaselines, RepeatingPatternInClosedForm) {
  // "0 1 2" four times, V = 3, validation = training. Unigram: each count 4, P = (4 + 1) / (12 + 3)
  // = 1/3, so H = ln 3. Pairs: (0,1) x4, (1,2) x4, (2,0) x3; each context has T = 1 follower, so
  // P(1|0) = P(2|1) = (4 + 1/3) / (4 + 1) = 13/15 and P(0|2) = (3 + 1/3) / (3 + 1) = 5/6; the 11
  // predictions: H = -(8 ln(13/15) + 3 ln(5/6)) / 11 = 0.1538, far below ln 3 = 1.0986.
  std::vector<int32_t> s;
  for (int r = 0; r < 4; ++r) s.insert(s.end(), {0, 1, 2});
  EXPECT_NEAR(unigram_cross_entropy(s, s, 3), std::log(3.0), 1e-12);
  const double bigram = bigram_cross_entropy(s, s, 3);
  EXPECT_NEAR(bigram, -(8 * std::log(13.0 / 15) + 3 * std::log(5.0 / 6)) / 11, 1e-12);
  EXPECT_LT(bigram, unigram_cross_entropy(s, s, 3) - 0.9);
}

TEST(TrainBaselines, UnseenContextFallsBackToTheUnigram) {
  // Token 3 never precedes anything in train: P(2 | 3) = P_uni(2) = (0 + 1) / (4 + 4) = 1/8.
  const std::vector<int32_t> train{0, 1, 0, 1};
  EXPECT_NEAR(bigram_cross_entropy(train, {3, 2}, 4), std::log(8.0), 1e-12);
}

TEST(TrainBaselines, RefusesIdsOutsideTheVocabularyAndTooShortValidation) {
  try {
    bigram_cross_entropy({0, 1, 9}, {0, 1}, 4);
    FAIL() << "no error";
  } catch (const llm0::Error& e) {
    EXPECT_NE(std::string(e.what()).find("training token 2 is id 9"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bigram_cross_entropy({0, 1}, {1}, 4), llm0::Error);
  EXPECT_THROW(unigram_cross_entropy({0, 1}, {-1}, 4), llm0::Error);
}
