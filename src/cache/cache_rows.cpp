// Cached rows in float32 or bfloat16. See cache_rows.h.
#include "cache/cache_rows.h"

#include <cstring>
#include <string>

#include "core/check.h"
#include "ops/bf16_kernels.h"

namespace llm0 {

const char* cache_dtype_name(CacheDtype dtype) { return dtype == CacheDtype::BF16 ? "bf16" : "f32"; }

int cache_dtype_bytes(CacheDtype dtype) { return dtype == CacheDtype::BF16 ? 2 : 4; }

CacheDtype parse_cache_dtype(std::string_view name) {
  if (name == "f32" || name == "fp32") return CacheDtype::F32;
  if (name == "bf16") return CacheDtype::BF16;
  LLM0_FAIL("unknown cache dtype \"{}\" (expected f32 or bf16)", std::string(name));
  return CacheDtype::F32;
}

CacheRows::CacheRows(long rows, long width, CacheDtype dtype) : width_(width), dtype_(dtype) {
  LLM0_CHECK(rows >= 0 && width >= 0, "cache rows [{}, {}] must not be negative", rows, width);
  if (dtype == CacheDtype::F32)
    f32_ = Tensor(Shape{rows, width});
  else
    bf16_.assign((size_t)(rows * width), 0);
}

void CacheRows::write(long row, long n, const float* src) {
  if (dtype_ == CacheDtype::F32)
    std::memcpy(f32_.data() + row * width_, src, sizeof(float) * (size_t)(n * width_));
  else
    bf16_round(bf16_.data() + row * width_, src, n * width_);
}

void CacheRows::read(long row, long n, float* dst) const {
  if (dtype_ == CacheDtype::F32)
    std::memcpy(dst, f32_.data() + row * width_, sizeof(float) * (size_t)(n * width_));
  else
    bf16_widen(dst, bf16_.data() + row * width_, n * width_, bf16_kernel());
}

}  // namespace llm0
