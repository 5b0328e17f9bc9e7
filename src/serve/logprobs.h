// Log-probabilities reported with `logprobs`: log_softmax of the raw logits of the sampled
// vocabulary, computed in double (log p_i = l_i - max l - log Σ_j exp(l_j - max l)).
#pragma once
#include "serve/request_stream.h"

namespace llm0::serve {

/// Log-prob of `token` under logits [V] and the `top_n` most likely ids (log-prob descending,
/// lower id first on ties; top_n is clamped to V). Non-finite logits count as -inf.
/// Requires 0 <= token < V and at least one finite logit.
TokenLogprob token_logprob(const float* logits, int V, int token, int top_n);

}  // namespace llm0::serve
