// Expert loads of a training step: summed over its micro-batches (what DeepSeek-V3's bias update
// reads), and their spread for the training log: per MoE layer, the largest and smallest fraction
// of routed tokens any expert received (uniform routing: 1/E each), and the worst layer.
#pragma once
#include <vector>

#include "model/model.h"

namespace llm0 {

struct MoeLoadSpread {
  double max_fraction = 0, min_fraction = 0;  // of the worst layer (fractions of its routed tokens)
  int layer = -1;                             // the worst layer's index (-1: no MoE layer)
};

/// Adds `load` (one forward's, Model::expert_load) into `sum`, layer by layer; an empty `sum`
/// becomes a copy. Token counts are integers, so the float sums are exact below 2^24 per expert.
/// Throws llm0::Error if the two list different layers or expert counts.
void add_expert_load(std::vector<Model::ExpertLoad>& sum, const std::vector<Model::ExpertLoad>& load);

/// The layer whose busiest expert has the largest multiple of its idlest one's load (an expert
/// with no tokens makes its layer worst; ties: the larger max_fraction, then the lower layer).
MoeLoadSpread moe_load_spread(const std::vector<Model::ExpertLoad>& load);

}  // namespace llm0
