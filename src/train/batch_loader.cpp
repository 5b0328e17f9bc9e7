// Random training windows and sequential evaluation windows. See batch_loader.h.
// RNG: splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014),
// a 64-bit state advanced by a constant, so the whole generator state is one integer.
#include "train/batch_loader.h"

#include <algorithm>
#include <limits>

#include "core/check.h"

namespace llm0 {

BatchLoader::BatchLoader(std::vector<int32_t> tokens, int B, int T, uint64_t seed)
    : tokens_(std::move(tokens)), B_(B), T_(T) {
  LLM0_CHECK(B >= 1 && T >= 1, "batch size B={} and sequence length T={} must be >= 1", B, T);
  LLM0_CHECK(tokens_.size() >= static_cast<size_t>(T) + 1,
             "token stream has {} tokens, fewer than T + 1 = {} needed for one window",
             tokens_.size(), static_cast<int64_t>(T) + 1);
  state_.rng = seed;
  state_.windows = 0;
}

uint64_t BatchLoader::next_random() {
  uint64_t z = (state_.rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void BatchLoader::fill_row(Batch& batch, int row, size_t start) const {
  const size_t T = static_cast<size_t>(T_);
  const int32_t* src = tokens_.data() + start;
  std::copy(src, src + T, batch.inputs.begin() + row * T);
  std::copy(src + 1, src + 1 + T, batch.targets.begin() + row * T);
}

size_t BatchLoader::next_start() {
  // Starts are uniform in [0, range); rejection sampling removes the modulo bias.
  const uint64_t range = tokens_.size() - static_cast<uint64_t>(T_);
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
  uint64_t r = next_random();
  while (r >= limit) r = next_random();
  ++state_.windows;
  return static_cast<size_t>(r % range);
}

void BatchLoader::next(Batch& batch) {
  const size_t n = static_cast<size_t>(B_) * T_;
  batch.B = B_;
  batch.T = T_;
  batch.inputs.resize(n);
  batch.targets.resize(n);
  for (int b = 0; b < B_; ++b) fill_row(batch, b, next_start());
}

void BatchLoader::skip(int64_t n) {
  LLM0_CHECK(n >= 0, "cannot skip {} windows", n);
  for (int64_t i = 0; i < n; ++i) next_start();
}

int64_t BatchLoader::num_eval_windows() const {
  return static_cast<int64_t>((tokens_.size() - 1) / static_cast<size_t>(T_));
}

int64_t BatchLoader::num_eval_batches() const { return (num_eval_windows() + B_ - 1) / B_; }

void BatchLoader::eval_batch(int64_t i, Batch& batch) const {
  LLM0_CHECK(i >= 0 && i < num_eval_batches(), "evaluation batch {} out of range [0, {})", i,
             num_eval_batches());
  const int64_t first = i * B_;
  const int rows = static_cast<int>(std::min<int64_t>(B_, num_eval_windows() - first));
  batch.B = rows;
  batch.T = T_;
  batch.inputs.resize(static_cast<size_t>(rows) * T_);
  batch.targets.resize(static_cast<size_t>(rows) * T_);
  for (int b = 0; b < rows; ++b) fill_row(batch, b, static_cast<size_t>(first + b) * T_);
}

}  // namespace llm0
