// Axis ticks for charts: "nice" values, steps of 1, 2 or 5 x 10^k (Heckbert, "Nice numbers for
// graph labels", Graphics Gems, 1990). One rule for every axis of every chart llm0 draws
// (loss_curve.svg now; the browser's training page will carry a JavaScript twin of nice_ticks,
// which must follow the algorithm below step by step).
#pragma once
#include <string>
#include <vector>

namespace llm0 {

/// The ticks of one axis: values[i] = (first + i) * step, covering [lo, hi].
struct AxisTicks {
  double step = 1;              // 1, 2 or 5 x 10^k
  int decimals = 0;             // digits after the point in a label: max(0, -k)
  std::vector<double> values;   // ascending; values.front() <= lo, values.back() >= hi
};

/// The ticks for data spanning [lo, hi] (order of the two ignored). The algorithm (the twin's):
///  1. A degenerate range (lo == hi) is widened to lo -/+ 0.05 |lo| (lo -/+ 0.5 when lo == 0).
///  2. Candidate steps, ascending: 1, 2, 5 x 10^k, starting at k = floor(log10((hi - lo) /
///     max_ticks)); a step below min_step (e.g. 1 for an axis of integer steps) is skipped.
///  3. For each, the covering ticks run from floor(lo / step) to ceil(hi / step) (as multiples of
///     step); the first step with at most max_ticks of them is taken. Each larger 1-2-5 step is at
///     most 2.5x the previous, so the count is also at least ~max_ticks / 2.5 (4 of at most 8).
///  4. Values are computed as integer multiples (n * m / 10^-k for k < 0), not by accumulation,
///     so 0.3 prints as 0.3. floor/ceil forgive 1e-9 of a step (3.0000000001 / 1 is 3).
/// Throws llm0::Error if lo or hi is not finite or max_ticks < 3 (a range
/// around 0 always needs 3: -step, 0, step).
AxisTicks nice_ticks(double lo, double hi, int max_ticks = 8, double min_step = 0);

/// A tick's label: `value` with ticks.decimals digits after the point ("-0" printed as "0").
std::string tick_label(double value, const AxisTicks& ticks);

}  // namespace llm0
