// Cached rows in float32 or bfloat16. See cache_rows.h.
#include "cache/cache_rows.h"

#include <cstring>

#include "core/check.h"
#include "ops/bf16_kernels.h"

namespace llm0 {

void check_cache_stores(ElementType dtype) {
  LLM0_CHECK(dtype == ElementType::F32 || dtype == ElementType::BF16,
             "the KV cache stores f32 or bf16, not {}", element_type_name(dtype));
}

CacheRows::CacheRows(long rows, long width, ElementType dtype) : width_(width), dtype_(dtype) {
  LLM0_CHECK(rows >= 0 && width >= 0, "cache rows [{}, {}] must not be negative", rows, width);
  check_cache_stores(dtype);
  if (dtype == ElementType::F32)
    f32_ = Tensor(Shape{rows, width});
  else
    bf16_.assign((size_t)(rows * width), 0);
}

void CacheRows::write(long row, long n, const float* src) {
  if (dtype_ == ElementType::F32)
    std::memcpy(f32_.data() + row * width_, src, sizeof(float) * (size_t)(n * width_));
  else
    bf16_round(bf16_.data() + row * width_, src, n * width_);
}

void CacheRows::read(long row, long n, float* dst) const {
  if (dtype_ == ElementType::F32)
    std::memcpy(dst, f32_.data() + row * width_, sizeof(float) * (size_t)(n * width_));
  else
    bf16_widen(dst, bf16_.data() + row * width_, n * width_, bf16_kernel());
}

}  // namespace llm0
