// Arena. See arena.h.
#include "core/arena.h"

namespace llm0 {

void Arena::allocate() {
  size_ = used_;
  buf_ = aligned_zeros(size_);
  used_ = 0;
  measuring_ = false;
}

float* Arena::take(size_t n) {
  const size_t start = used_;
  used_ += (n + 15) / 16 * 16;  // keep every view 64-byte aligned
  if (measuring_) return nullptr;
  LLM0_CHECK(used_ <= size_, "arena overflow: {} floats planned, {} requested", size_, used_);
  return buf_.get() + start;
}

}  // namespace llm0
