// Batches of token windows for training and evaluation (llm.c's DataLoader, nanoGPT's get_batch).
// Training draws B windows of T+1 consecutive tokens at uniformly random starts (with replacement)
// from one token stream (documents joined with <|endoftext|> by the caller); inputs are the first
// T tokens of each window and targets the last T, i.e. targets[b][t] = stream[start_b + t + 1].
// Evaluation walks the stream in order in non-overlapping windows, so every token after the first
// of the stream (up to a last partial window) is a target exactly once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm0 {

/// One batch; row-major [B, T] (B = rows actually filled, T = tokens per row).
struct Batch {
  int B = 0, T = 0;
  std::vector<int32_t> inputs;   // [B, T]
  std::vector<int32_t> targets;  // [B, T], targets[b*T + t] is the token after inputs[b*T + t]
};

/// Everything that determines the next training batches: the RNG state (splitmix64) and the
/// number of training windows drawn (by next() or skip()). Saving it and calling set_state()
/// resumes exactly, whatever batch size the resumed run uses: windows are drawn one at a time.
struct BatchLoaderState {
  uint64_t rng = 0;
  int64_t windows = 0;
};

class BatchLoader {
 public:
  /// Loader over `tokens` (taken by value; move it in) with B rows of T tokens, random windows
  /// seeded by `seed`. Throws llm0::Error if B < 1, T < 1, or the stream has fewer than T + 1
  /// tokens (saying how many it has).
  BatchLoader(std::vector<int32_t> tokens, int B, int T, uint64_t seed);

  /// Training: fills `batch` with B windows at random starts in [0, N - T - 1], N = stream length.
  /// Deterministic from the seed and the number of batches drawn so far. Allocates only when
  /// `batch` is smaller than [B, T] (so reusing one Batch allocates once).
  void next(Batch& batch);
  /// Training: draws n windows without reading them, exactly as next() would (data parallelism:
  /// the windows of the other ranks). Throws llm0::Error if n < 0.
  void skip(int64_t n);

  /// Evaluation: number of non-overlapping windows, (N - 1) / T; window w covers inputs
  /// stream[w*T, w*T + T) and targets stream[w*T + 1, w*T + T + 1).
  int64_t num_eval_windows() const;
  /// Evaluation: number of batches, ceil(num_eval_windows() / B).
  int64_t num_eval_batches() const;
  /// Evaluation batch i (0-based): windows [i*B, min((i+1)*B, num_eval_windows())); the last batch
  /// may have fewer than B rows (batch.B says how many). Does not touch the training state.
  /// Throws llm0::Error if i is out of range.
  void eval_batch(int64_t i, Batch& batch) const;

  BatchLoaderState state() const { return state_; }
  void set_state(const BatchLoaderState& s) { state_ = s; }
  int batch_size() const { return B_; }
  int seq_len() const { return T_; }
  size_t num_tokens() const { return tokens_.size(); }

 private:
  void fill_row(Batch& batch, int row, size_t start) const;
  uint64_t next_random();
  size_t next_start();  // start of the next training window

  std::vector<int32_t> tokens_;
  int B_, T_;
  BatchLoaderState state_;
};

}  // namespace llm0
