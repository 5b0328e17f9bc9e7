// Expert-load spread. See moe_load.h.
#include "train/moe_load.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/check.h"

namespace llm0 {

void add_expert_load(std::vector<Model::ExpertLoad>& sum, const std::vector<Model::ExpertLoad>& load) {
  if (sum.empty()) {
    sum = load;
    return;
  }
  LLM0_CHECK(sum.size() == load.size(), "expert loads of {} and {} MoE layers cannot be added",
             sum.size(), load.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    std::vector<float>& s = sum[i].tokens;
    const std::vector<float>& l = load[i].tokens;
    LLM0_CHECK(sum[i].layer == load[i].layer && s.size() == l.size(), "expert loads of layer {} "
               "({} experts) and layer {} ({} experts) cannot be added", sum[i].layer, s.size(),
               load[i].layer, l.size());
    for (size_t e = 0; e < s.size(); ++e) s[e] += l[e];
  }
}

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
