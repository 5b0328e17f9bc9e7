// The baselines the trainer prints beside the validation loss: the cross-entropy of the
// validation tokens under two count models of the training split, with no context (unigram) and
// with the previous token as context (bigram). A model that learned nothing beyond token
// frequencies scores the unigram; one that learned only which token follows which, the bigram.
//
// Both read the token streams the trainer trains on: every document's tokens followed by
// <|endoftext|>, documents concatenated. A pair (a, b) is two neighbours in that stream, so the
// pair (<|endoftext|>, first token of a document) teaches how documents begin, and no pair joins
// the text of two documents directly; the model is scored on the same next-token predictions
// (its windows also run across <|endoftext|>).
#pragma once
#include <cstdint>
#include <vector>

namespace llm0 {

/// Cross-entropy, nats/token, of every token of `val` under the unigram distribution of `train`
/// with add-one (Laplace) smoothing over the vocabulary: P(b) = (c(b) + 1) / (N + V), N =
/// train.size(). Tokens are ids in [0, vocab_size). Throws llm0::Error if val is empty or a token
/// is out of range.
double unigram_cross_entropy(const std::vector<int32_t>& train, const std::vector<int32_t>& val,
                             int vocab_size);

/// Cross-entropy, nats/token, of the n - 1 next-token predictions of `val` (val[i] given val[i-1],
/// i = 1..n-1) under a bigram model of `train`, Witten-Bell smoothed (Witten & Bell 1991; the
/// interpolated form of Chen & Goodman, "An empirical study of smoothing techniques for language
/// modeling", 1998, its section on Witten-Bell smoothing):
///   P(b | a) = (c(a, b) + T(a) * P_uni(b)) / (c(a) + T(a)),
/// c(a, b) = count of the pair (a, b) in train, c(a) = sum over b of c(a, b) (a as a predecessor),
/// T(a) = number of distinct b with c(a, b) > 0, P_uni = the add-one unigram above. A context
/// never seen as a predecessor (c(a) = 0) falls back to P_uni(b). Parameter-free, and never 0.
/// Throws llm0::Error if val has fewer than 2 tokens or a token is out of range.
double bigram_cross_entropy(const std::vector<int32_t>& train, const std::vector<int32_t>& val,
                            int vocab_size);

}  // namespace llm0
