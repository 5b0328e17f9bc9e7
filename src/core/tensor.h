// Tensor: float32, contiguous, row-major (outermost dimension first: [B, T, H, D]), rank <= 4.
// An owning buffer is 64-byte aligned; a view borrows memory (from the parameter store, an
// activation plan or a cache). Layout changes are explicit ops, never hidden strides.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/check.h"

namespace llm0 {

/// Shape of a tensor, outermost first; numel() is the product of the extents.
struct Shape {
  std::vector<int64_t> dims;
  Shape() = default;
  Shape(std::initializer_list<int64_t> d) : dims(d) {}
  explicit Shape(std::vector<int64_t> d) : dims(std::move(d)) {}
  int rank() const { return static_cast<int>(dims.size()); }
  int64_t operator[](int i) const { return dims.at(static_cast<size_t>(i)); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool operator==(const Shape& o) const { return dims == o.dims; }
  std::string str() const;  // "[2, 3, 4]"
};

/// Deleter for 64-byte aligned float buffers.
struct AlignedFree {
  void operator()(float* p) const;
};
using AlignedBuffer = std::unique_ptr<float[], AlignedFree>;

/// Allocates n floats, 64-byte aligned (2 MiB aligned and advised as transparent huge pages when
/// n·4 ≥ 2 MiB), zero-filled. Throws llm0::Error if allocation fails.
AlignedBuffer aligned_zeros(size_t n);

/// A float32 tensor: owning (data from aligned_zeros) or a view of memory owned elsewhere.
class Tensor {
 public:
  Tensor() = default;
  /// Owning, zero-filled tensor of the given shape.
  explicit Tensor(Shape shape);
  /// Non-owning view of `data` with `shape` (data must outlive the view).
  static Tensor view(float* data, Shape shape);

  float* data() { return data_; }
  const float* data() const { return data_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_.numel(); }
  int64_t dim(int i) const { return shape_[i]; }
  bool empty() const { return data_ == nullptr || numel() == 0; }
  /// Same memory, new shape of the same numel. Throws llm0::Error on a numel mismatch.
  Tensor reshaped(Shape s) const;
  void zero();

 private:
  AlignedBuffer owned_;
  float* data_ = nullptr;
  Shape shape_;
};

}  // namespace llm0
