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
  /// Runs carve(i) for i in [0, n), each taking from the same start, so the views of different i
  /// share memory (buffers used one at a time: the layers' scratch); later takes follow the
  /// largest.
  template <class F>
  void overlay(int n, F&& carve) {
    const size_t start = used_;
    size_t end = start;
    for (int i = 0; i < n; ++i) {
      used_ = start;
      carve(i);
      end = used_ > end ? used_ : end;
    }
    used_ = end;
  }

 private:
  AlignedBuffer buf_;
  size_t size_ = 0, used_ = 0;
  bool measuring_ = false;
};

}  // namespace llm0
