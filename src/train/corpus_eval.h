// A model's loss on a corpus split (`llm0 eval`): nats per token, and nats per character so that
// models with different tokenizers (runs trained on different corpora) compare on the same text.
// The split is scored as one token stream, <|endoftext|> first and after every document (the
// trainer's stream, train/trainer_setup.cpp, with a leading separator so the first document's
// first token is predicted too), cut into non-overlapping windows of T tokens as the trainer's
// validation walks it (train/batch_loader.h eval_batch) plus one shorter last window: every token
// after the leading separator is a target exactly once, so the total is the text's code length
// -ln p(text) under the model (the context restarts at each window, as in the trainer's
// validation).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// What evaluate_corpus measured.
struct CorpusEval {
  int64_t documents = 0;   // documents scored
  int64_t characters = 0;  // their UTF-8 characters (utf8_char_count), separators not counted
  int64_t tokens = 0;      // targets scored: each document's tokens and its <|endoftext|>
  double total_nats = 0;   // Σ -ln p(target | window so far) over those targets
  int seq_len = 0, batch_size = 0;  // the windows' T and the rows per forward
  /// total_nats / tokens: the trainer's val_loss measure (over the whole split).
  double nats_per_token() const { return total_nats / (double)tokens; }
  /// total_nats / characters: the cost of the text, <|endoftext|> included (the model also says
  /// where each document ends), per character of it; independent of the tokenizer.
  double nats_per_character() const { return total_nats / (double)characters; }
};

/// Scores `docs` under `model` with `tokenizer` in windows of `seq_len` tokens, `batch_size`
/// windows per forward (train/thread_lanes.h: one lane per thread, as the trainer's validation).
/// Throws llm0::Error for no document, seq_len outside [1, max_position_embeddings], batch_size
/// < 1, a tokenizer larger than the model's vocabulary, or what Model::forward throws.
CorpusEval evaluate_corpus(Model& model, const Tokenizer& tokenizer,
                           const std::vector<std::string>& docs, int seq_len, int batch_size);

}  // namespace llm0
