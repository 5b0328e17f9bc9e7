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

AppendRows::AppendRows(long capacity, long width, CacheDtype dtype,
                       std::shared_ptr<std::vector<float>> read_buffer)
    : store_(capacity, width, dtype), read_buffer_(std::move(read_buffer)) {
  if (dtype == CacheDtype::BF16 && !read_buffer_) read_buffer_ = std::make_shared<std::vector<float>>();
}

float* AppendRows::rows(long pos, long n) {
  if (store_.dtype() == CacheDtype::F32) return store_.f32() + pos * store_.width();
  staging_.resize((size_t)(n * store_.width()));
  return staging_.data();
}

void AppendRows::commit(long pos, long n) {
  if (store_.dtype() == CacheDtype::BF16) store_.write(pos, n, staging_.data());
}

KvRowSet AppendRows::row_pointers(long n, KvRowPointers& ptrs) const {
  if (store_.dtype() == CacheDtype::F32) {
    ptrs.f32.resize((size_t)n);
    for (long r = 0; r < n; ++r) ptrs.f32[(size_t)r] = store_.f32_row(r);
    return KvRowSet{ptrs.f32.data(), nullptr};
  }
  ptrs.bf16.resize((size_t)n);
  for (long r = 0; r < n; ++r) ptrs.bf16[(size_t)r] = store_.bf16_row(r);
  return KvRowSet{nullptr, ptrs.bf16.data()};
}

const float* AppendRows::all(long n) const {
  if (store_.dtype() == CacheDtype::F32) return store_.f32();
  std::vector<float>& buf = *read_buffer_;
  if (buf.size() < (size_t)(n * store_.width())) buf.resize((size_t)(n * store_.width()));
  store_.read(0, n, buf.data());
  return buf.data();
}

}  // namespace llm0
