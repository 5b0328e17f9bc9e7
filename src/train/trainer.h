// The training loop (DESIGN.md "Data flow"): corpus -> tokenizer -> token stream (documents
// joined by <|endoftext|>) -> random [B, T+1] windows -> forward -> cross-entropy -> backward ->
// clip -> AdamW (linear warmup, cosine decay) -> checkpoints. A run directory holds
// checkpoint/ (config.json, model.safetensors, tokenizer.json, trainer_state.json,
// optimizer.safetensors; swapped in atomically), metrics.jsonl (one JSON object per logged step
// or evaluation) and loss_curve.svg.
#pragma once
#include <memory>

#include "train/train_options.h"

namespace llm0 {

class TrainerImpl;

class Trainer {
 public:
  /// Validates options and loads config, corpus, tokenizer (or trains one), weights (fresh or
  /// --resume) — writing nothing yet. Throws llm0::Error naming the problem: missing/empty corpus,
  /// seq_len > max_position_embeddings, vocab_size < 256 + specials, tokenizer larger than
  /// vocab_size, unwritable output directory, corrupt checkpoint on resume.
  explicit Trainer(const TrainOptions& options);
  ~Trainer();
  /// Trains to the schedule's end (or the time limit), checkpointing every checkpoint_every
  /// steps and at the end. Returns the summary.
  TrainSummary run();

 private:
  std::unique_ptr<TrainerImpl> impl_;
};

}  // namespace llm0
