// Prefill-then-decode measurements shared by the lessons that time decoding as the context grows
// (cache-kinds, hybrid-state).
#pragma once
#include <vector>

#include "model/model.h"

namespace llm0::lesson {

/// Prefills a fresh cache of n + G positions with n tokens ((37·i + 11) mod vocab_size).
/// Throws what Model::forward_cached throws.
ModelCache prefilled_cache(Model& m, int n, int G);

/// Decodes G greedy tokens (the first is id 1) one at a time through `cache`; returns the mean
/// wall time per token in milliseconds.
double decode_ms_per_token(Model& m, ModelCache& cache, int G);

}  // namespace llm0::lesson
