// Expert-load spread. See moe_load.h.
#include "train/moe_load.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace llm0 {

MoeLoadSpread moe_load_spread(const std::vector<Model::ExpertLoad>& load) {
  MoeLoadSpread worst;
  double worst_ratio = -1;
  for (const Model::ExpertLoad& l : load) {
    const double total = std::accumulate(l.tokens.begin(), l.tokens.end(), 0.0);
    if (total <= 0 || l.tokens.empty()) continue;
    const auto [mn, mx] = std::minmax_element(l.tokens.begin(), l.tokens.end());
    const double hi = *mx / total, lo = *mn / total;
    const double ratio = lo > 0 ? hi / lo : std::numeric_limits<double>::infinity();
    if (ratio > worst_ratio || (ratio == worst_ratio && hi > worst.max_fraction))
      worst_ratio = ratio, worst = {hi, lo, l.layer};
  }
  return worst;
}

}  // namespace llm0
