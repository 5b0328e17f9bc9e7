// Expert-load spread for the training log: per MoE layer, the largest and smallest fraction of
// routed tokens any expert received (uniform routing: 1/E each), and the worst layer.
#pragma once
#include <vector>

#include "model/model.h"

namespace llm0 {

struct MoeLoadSpread {
  double max_fraction = 0, min_fraction = 0;  // of the worst layer (fractions of its routed tokens)
  int layer = -1;                             // the worst layer's index (-1: no MoE layer)
};

/// The layer whose busiest expert has the largest multiple of its idlest one's load (an expert
/// with no tokens makes its layer worst; ties: the larger max_fraction, then the lower layer).
MoeLoadSpread moe_load_spread(const std::vector<Model::ExpertLoad>& load);

}  // namespace llm0
