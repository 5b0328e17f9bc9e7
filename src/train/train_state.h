// Training state saved beside a checkpoint so `--resume` continues exactly:
// trainer_state.json (step, schedule length and learning-rate schedule, batch-loader RNG, seed,
// batch shape, data-parallel ranks and global batch, threads per process) and
// optimizer.safetensors (AdamW moments per parameter, PyTorch's state names "<param>.exp_avg" and
// "<param>.exp_avg_sq").
#pragma once
#include <cstdint>
#include <string>

#include "core/params.h"
#include "train/adamw.h"
#include "train/batch_loader.h"
#include "train/train_options.h"

namespace llm0 {

struct TrainState {
  int step = 0;         // optimizer steps done
  int total_steps = 0;  // schedule length
  BatchLoaderState loader;
  uint64_t seed = 0;
  int batch_size = 0, seq_len = 0, grad_accum = 0;
  int ranks = 1;            // data-parallel ranks of the session that wrote the state
  int threads = 0;          // its threads per process (0: not recorded, older checkpoints)
  double tokens_seen = 0;   // targets trained on, all ranks together
  // The optimizer schedule (absent from checkpoints written before it was saved: has_schedule
  // false, and --resume then keeps the values of the command line).
  bool has_schedule = false;
  double lr = 0, min_lr = 0, weight_decay = 0, grad_clip = 0;
  double dropout = 0;  // residual dropout probability (absent before --dropout: 0)
  int warmup_steps = 0;
  std::string precision = "f32";  // the matrix products' (train/precision.h); absent before: f32
  /// Sequences per optimizer step, all ranks together: batch_size × grad_accum × ranks.
  int64_t global_batch() const { return (int64_t)batch_size * grad_accum * ranks; }
};

/// Writes trainer_state.json and optimizer.safetensors into directory `dir`.
void save_train_state(const std::string& dir, const TrainState& s, const ParamStore& store,
                      const AdamW& opt);

/// Reads and checks trainer_state.json of directory `dir` alone (no optimizer moments). Throws
/// llm0::Error naming the file and field when missing or corrupt.
TrainState read_train_state(const std::string& dir);

/// Reads them back; restores the optimizer's moments and step count. Throws llm0::Error naming
/// the file and field when missing or corrupt (nothing is modified before all checks pass).
TrainState load_train_state(const std::string& dir, const ParamStore& store, AdamW& opt);

}  // namespace llm0
