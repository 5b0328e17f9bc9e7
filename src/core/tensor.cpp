// Tensor storage: aligned allocation and views. See tensor.h.
#include "core/tensor.h"

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
  const size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
  void* p = bytes ? std::aligned_alloc(64, bytes) : nullptr;
  LLM0_CHECK(bytes == 0 || p != nullptr, "out of memory allocating {} bytes", bytes);
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
