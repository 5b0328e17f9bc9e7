// Log-probabilities reported with `logprobs` (OpenAI completions/chat, vLLM's convention): log_softmax
// of the raw logits of the sampled vocabulary, before temperature and penalties, computed in double
// (log p_i = l_i - max l - log Σ_j exp(l_j - max l)). Sequence (sequence.h) computes one per token.
#pragma once
#include <utility>
#include <vector>

namespace llm0 {

/// Log-probability of one chosen token (natural log, of the model's softmax over the raw logits,
/// before temperature and penalties, as vLLM reports it) and of the `top` most likely tokens
/// (sorted by log-prob descending, then id ascending).
struct TokenLogprob {
  int token = -1;
  double logprob = 0;
  std::vector<std::pair<int, double>> top;  // (id, logprob)
};

/// Log-prob of `token` under logits [V] and the `top_n` most likely ids (log-prob descending,
/// lower id first on ties; top_n is clamped to V). Non-finite logits count as -inf.
/// Requires 0 <= token < V and at least one finite logit.
TokenLogprob token_logprob(const float* logits, int V, int token, int top_n);

}  // namespace llm0
