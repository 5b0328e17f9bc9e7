// Random initialisation, GPT-2 style (Radford et al. 2019, §2.3; nanoGPT GPT._init_weights):
// every weight matrix and embedding ~ normal(0, 0.02); residual output projections (o_proj,
// down_proj) ~ normal(0, 0.02 / √(2·num_hidden_layers)); biases 0; norm weights 1 (QK-norm too).
#pragma once
#include <cstdint>

#include "model/model.h"

namespace llm0 {

/// Overwrites every parameter of `model` deterministically from `seed` (same seed, same weights,
/// independent of thread count).
void init_weights(Model& model, uint64_t seed);

}  // namespace llm0
