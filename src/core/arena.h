// Arena: one aligned float buffer carved into views, planned once (e.g. per (B, T) for training
// activations) so the hot path never allocates. Planning is two passes over the same code:
// measure (take() returns nullptr and counts), then allocate and take() again for real pointers.
#pragma once
#include <cstddef>

#include "core/tensor.h"

namespace llm0 {

class Arena {
 public:
  /// Starts a measuring pass: take() counts floats and returns nullptr.
  void begin_measure() { measuring_ = true; used_ = 0; }
  /// Allocates what the measuring pass counted and starts the real pass.
  void allocate();
  /// n floats, 64-byte aligned (nullptr while measuring). Throws llm0::Error past the planned size.
  float* take(size_t n);
  size_t floats() const { return size_; }

 private:
  AlignedBuffer buf_;
  size_t size_ = 0, used_ = 0;
  bool measuring_ = false;
};

}  // namespace llm0
