// Inverted dropout (ops/dropout.h): the kept fraction and the mean are those of the definition
// within binomial bounds, kept elements are x / (1 − p) exactly, the map is its own backward (a
// diagonal Jacobian, checked by finite differences), p = 0 is the identity bitwise, masks are the
// same for any thread count, and different draws (sub-keys) are independent.
//
// Every statistical bound is 6 standard deviations of the count under the definition (a false
// failure has probability ~2e-9 per check, and the hash is a fixed function: these draws pass or
// fail the same way on every machine).
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/threads.h"
#include "ops/dropout.h"
#include "test_util.h"

namespace llm0 {
namespace {

TEST(OpsDropout, KeepsOneMinusPOfTheElementsScaledByItsInverse) {
  const size_t n = 1 << 20;
  std::mt19937 rng(4);
  const auto x = test::rand_vec(n, rng);
  for (float p : {0.1f, 0.5f, 0.9f}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const Dropout d{p, 77};
    std::vector<float> y(n);
    dropout_apply(y.data(), x.data(), n, d);
    const float scale = (float)(1.0 / (1.0 - (double)p));
    size_t dropped = 0, both = 0, mismatched = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool keep = dropout_keeps(d, i);
      dropped += !keep;
      if (i + 1 < n) both += !keep && !dropout_keeps(d, i + 1);  // the two halves of one hash
      if (y[i] != (keep ? x[i] * scale : 0.0f)) ++mismatched;
    }
    EXPECT_EQ(mismatched, 0u) << "y differs from keep(i) ? x / (1 - p) : 0";
    const double sd = std::sqrt(n * p * (1.0 - p));
    EXPECT_NEAR((double)dropped, n * p, 6 * sd);
    // Adjacent elements (one hash's two halves, or two hashes) drop together with probability p²:
    // the count of the n − 1 overlapping pairs has variance below n·p²(1 − p²)·3 (each pair is
    // dependent on its two neighbours only).
    EXPECT_NEAR((double)both, (n - 1) * p * p, 6 * std::sqrt(3.0 * n * p * p * (1 - p * p)));
  }
}

TEST(OpsDropout, MeanOfOnesStaysOne) {
  // y_i = keep_i / (1 − p) for x = 1: mean 1, variance p / (1 − p) per element.
  const size_t n = 1 << 20;
  const float p = 0.2f;
  std::vector<float> y(n, 1.0f);
  dropout_apply(y.data(), y.data(), n, Dropout{p, 3});  // in place
  double sum = 0;
  for (float v : y) sum += v;
  EXPECT_NEAR(sum / n, 1.0, 6 * std::sqrt(p / (1.0 - p) / n));
}

TEST(OpsDropout, SubDrawsAreIndependentAndKeysDiffer) {
  const size_t n = 1 << 20;
  const float p = 0.5f;
  const Dropout d{p, 11};
  const Dropout a = d.sub(0), b = d.sub(1), other{p, 12};
  size_t a_b = 0, d_a = 0, d_other = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool ka = dropout_keeps(a, i);
    a_b += ka == dropout_keeps(b, i);
    d_a += ka == dropout_keeps(d, i);
    d_other += dropout_keeps(d, i) == dropout_keeps(other, i);
  }
  // Independent masks agree on p² + (1 − p)² = 1/2 of the elements, binomial.
  const double sd = std::sqrt(n * 0.25);
  for (size_t agree : {a_b, d_a, d_other}) EXPECT_NEAR((double)agree, n * 0.5, 6 * sd);
  EXPECT_EQ(d.sub(5).key, d.sub(5).key);
  EXPECT_EQ(d.sub(5).p, p);
}

TEST(OpsDropout, ZeroProbabilityIsTheIdentityAndBadProbabilitiesAreRefused) {
  std::mt19937 rng(9);
  const auto x = test::rand_vec(1001, rng);
  std::vector<float> y(x.size());
  dropout_apply(y.data(), x.data(), x.size(), Dropout{0.0f, 5});
  EXPECT_EQ(y, x);
  EXPECT_FALSE(Dropout{}.active());
  for (float p : {1.0f, -0.1f, NAN}) EXPECT_THROW(dropout_apply(y.data(), x.data(), x.size(), Dropout{p, 5}), Error);
}

// The Jacobian of y = dropout(x) is diag(keep / (1 − p)): backward is the same map applied to the
// upstream gradient. Checked against central differences of L = <r, dropout(x)>, which is linear
// in x under a fixed draw: the quotient has no truncation error at any step, so a large step
// (h = 0.25) leaves only the float rounding of x ± h and of y, ≤ 2⁻²³ of |r·y| / h per element
// (~1e-6 here): tolerance 1e-5 relative + 1e-6.
TEST(OpsDropout, BackwardIsTheSameMapAndMatchesFiniteDifferences) {
  const size_t n = 257;
  std::mt19937 rng(13);
  const auto x = test::rand_vec(n, rng);
  const auto r = test::upstream(n, rng);
  const Dropout d{0.4f, 21};
  auto xd = test::to_double(x);
  auto loss = [&] {
    std::vector<float> xf(n), y(n);
    for (size_t i = 0; i < n; ++i) xf[i] = (float)xd[i];
    dropout_apply(y.data(), xf.data(), n, d);
    double l = 0;
    for (size_t i = 0; i < n; ++i) l += (double)r[i] * y[i];
    return l;
  };
  std::vector<float> dx(n);
  dropout_apply(dx.data(), r.data(), n, d);
  EXPECT_TRUE(test::all_close(dx, test::fd_grad(xd, loss, 0.25), 1e-5, 1e-6, "dx"));
}

TEST(OpsDropout, SameMaskForAnyThreadCount) {
  const size_t n = 300001;  // above the OpenMP threshold, odd (a last unpaired element)
  std::mt19937 rng(2);
  const auto x = test::rand_vec(n, rng);
  std::vector<float> one(n), two(n);
  set_num_threads(1);
  dropout_apply(one.data(), x.data(), n, Dropout{0.3f, 99});
  set_num_threads(2);
  dropout_apply(two.data(), x.data(), n, Dropout{0.3f, 99});
  set_num_threads(1);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one[n - 1] == 0.0f, !dropout_keeps(Dropout{0.3f, 99}, n - 1));
}

// A call that starts at element `first` of a tensor (a thread lane's rows, Dropout::first) keeps
// exactly the elements the call over the whole tensor keeps, whatever the parity of the start and
// of the length.
TEST(OpsDropout, APartStartingAtFirstDrawsTheWholeTensorsMask) {
  const size_t n = 1001;
  std::mt19937 rng(3);
  const auto x = test::rand_vec(n, rng);
  const Dropout whole_draw{0.4f, 17};
  std::vector<float> whole(n);
  dropout_apply(whole.data(), x.data(), n, whole_draw.sub(5));
  for (size_t first : {0, 1, 2, 333, 500}) {
    for (size_t len : {1, 2, 7, 300}) {
      Dropout d = whole_draw;
      d.first = first;
      std::vector<float> part(len);
      dropout_apply(part.data(), x.data() + first, len, d.sub(5));  // sub keeps first
      for (size_t i = 0; i < len; ++i) {
        ASSERT_EQ(part[i], whole[first + i]) << "first " << first << " element " << i;
        ASSERT_EQ(dropout_keeps(d, i), dropout_keeps(whole_draw, first + i));
      }
    }
  }
}

}  // namespace
}  // namespace llm0
