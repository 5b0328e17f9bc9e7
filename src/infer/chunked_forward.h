// The cached path as one call, for comparing it with the full forward (`llm0 forward --chunks`,
// DESIGN.md "Cross-cutting rules"): prefill with the first chunk, then each following chunk,
// then the remaining tokens one at a time, collecting every position's logits.
#pragma once
#include <vector>

#include "model/infer_context.h"
#include "model/model.h"

namespace llm0 {

/// Logits [T, vocab_size] of `tokens` [T] computed through Model::forward_cached with a fresh
/// cache of `max_context` positions (0 = max_position_embeddings): chunk sizes `chunks` in order,
/// then single tokens. Throws llm0::Error (naming --chunks, the sizes and T) for an empty sequence,
/// a chunk size < 1, chunks adding up to more than T (a chunk past the end cannot apply), or
/// what forward_cached throws (ids out of range, context full).
/// The forward runs in `ctx` (its kernel order and MLA decode form; its counters count the work).
std::vector<float> chunked_forward(const Model& model, InferContext& ctx,
                                   const std::vector<int>& tokens, const std::vector<int>& chunks,
                                   int max_context = 0);

}  // namespace llm0
