// Prefill-then-decode measurements shared by the lessons that time decoding as the context grows
// (cache-kinds, hybrid-state).
#pragma once
#include <vector>

#include "model/infer_context.h"
#include "model/model.h"

namespace llm0::lesson {

/// Prefills a fresh cache of n + G positions with n tokens ((37·i + 11) mod vocab_size).
/// Runs in `ctx` (its counters count the work). Throws what Model::forward_cached throws.
ModelCache prefilled_cache(const Model& m, InferContext& ctx, int n, int G);

/// Decodes G greedy tokens (the first is id 1) one at a time through `cache`; returns the mean
/// wall time per token in milliseconds. Runs in `ctx`.
double decode_ms_per_token(const Model& m, InferContext& ctx, ModelCache& cache, int G);

}  // namespace llm0::lesson
