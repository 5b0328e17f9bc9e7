// Tensor storage: aligned allocation and views. See tensor.h.
#include "core/tensor.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace llm0 {

std::string Shape::str() const {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? ", " : "") << dims[i];
  os << "]";
  return os.str();
}

void AlignedFree::operator()(float* p) const { std::free(p); }

AlignedBuffer aligned_zeros(size_t n) {
  // Buffers of 2 MiB or more (weights, gradients, optimizer moments, activations) are aligned to
  // 2 MiB and offered to the kernel as transparent huge pages: one TLB entry per 2 MiB instead of
  // 512, which lets a decode step stream its weights ~1.4× faster (measured:
  // docs/performance-history.md, "What was changed").
  constexpr size_t kHuge = (size_t)2 << 20;
  const size_t align = n * sizeof(float) >= kHuge ? kHuge : 64;
  const size_t bytes = (n * sizeof(float) + align - 1) / align * align;
  void* p = bytes ? std::aligned_alloc(align, bytes) : nullptr;
  LLM0_CHECK(bytes == 0 || p != nullptr, "out of memory allocating {} bytes", bytes);
#ifdef MADV_HUGEPAGE
  if (p && align == kHuge) madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  if (p) std::memset(p, 0, bytes);
  return AlignedBuffer(static_cast<float*>(p));
}

Tensor::Tensor(Shape shape) : shape_(std::move(shape)) {
  for (int64_t d : shape_.dims) LLM0_CHECK(d >= 0, "negative extent in shape {}", shape_.str());
  owned_ = aligned_zeros(static_cast<size_t>(shape_.numel()));
  data_ = owned_.get();
}

Tensor Tensor::view(float* data, Shape shape) {
  Tensor t;
  t.data_ = data;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::reshaped(Shape s) const {
  LLM0_CHECK(s.numel() == numel(), "cannot reshape {} to {}", shape_.str(), s.str());
  return view(data_, std::move(s));
}

void Tensor::zero() {
  if (data_) std::memset(data_, 0, sizeof(float) * static_cast<size_t>(numel()));
}

}  // namespace llm0
