// Nice axis ticks. See chart_ticks.h.
#include "train/chart_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/check.h"

namespace llm0 {

AxisTicks nice_ticks(double lo, double hi, int max_ticks, double min_step) {
  LLM0_CHECK(std::isfinite(lo) && std::isfinite(hi), "chart axis range [{}, {}] is not finite", lo, hi);
  LLM0_CHECK(max_ticks >= 3, "chart axis needs room for at least 3 ticks, got {}", max_ticks);
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    const double half = lo == 0 ? 0.5 : 0.05 * std::fabs(lo);
    lo -= half, hi += half;
  }
  constexpr int kMantissa[3] = {1, 2, 5};
  constexpr double kSlack = 1e-9;  // of a step: rounding in lo / step must not add a tick
  for (int k = (int)std::floor(std::log10((hi - lo) / max_ticks));; ++k)
    for (int m : kMantissa) {
      const double step = m * std::pow(10.0, k);
      if (step < min_step) continue;
      const double first = std::floor(lo / step + kSlack), last = std::ceil(hi / step - kSlack);
      if (last - first + 1 > max_ticks) continue;
      AxisTicks t;
      t.step = step, t.decimals = std::max(0, -k);
      for (double n = first; n <= last; ++n)  // n * m * 10^k, exact in decimal as far as doubles go
        t.values.push_back(k < 0 ? n * m / std::pow(10.0, -k) : n * m * std::pow(10.0, k));
      return t;
    }
}

std::string tick_label(double value, const AxisTicks& ticks) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", ticks.decimals, value);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // "-0.0"
  return s;
}

}  // namespace llm0
