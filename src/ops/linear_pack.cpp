// Panel packing of linear weights. See linear_pack.h.
#include "ops/linear_pack.h"

#include <algorithm>
#include <cstring>

#include "core/check.h"
#include "core/huge_pages.h"

namespace llm0 {

namespace {

// dst [panels][I][P] from W [O, I]: each W row read front to back, written with stride P.
template <class T>
void pack(T* dst, const T* W, int I, int O) {
  constexpr int P = kLinearPanel;
  const int panels = (O + P - 1) / P;
#pragma omp parallel for schedule(static) if ((long)O * I > (1L << 20))
  for (int p = 0; p < panels; ++p)
    for (int j = 0; j < P && p * P + j < O; ++j) {
      const T* w = W + (long)(p * P + j) * I;
      T* d = dst + (long)p * I * P + j;
      for (int k = 0; k < I; ++k) d[(long)k * P] = w[k];
    }
}
}  // namespace

PackedLinear pack_linear(Weight W, int I, int O, std::shared_ptr<void> dst) {
  LLM0_CHECK(I >= 1 && O >= 1 && W, "pack_linear: a weight of [{}, {}] (needs >= 1 x 1, set)", O, I);
  PackedLinear r;
  r.I = I, r.O = O, r.bf16 = W.bf16 != nullptr;
  r.data = dst ? std::move(dst) : huge_page_buffer(r.bytes(), "packed weight panels");  // zeroed: the padding
  if (W.bf16) pack(static_cast<uint16_t*>(r.data.get()), W.bf16, I, O);
  else pack(static_cast<float*>(r.data.get()), W.f32, I, O);
  return r;
}

namespace {
const void* key_of(Weight W) { return W.bf16 ? (const void*)W.bf16 : (const void*)W.f32; }
}  // namespace

PackedWeights::PackedWeights(std::span<const LinearMap> maps) {
  for (const LinearMap& m : maps) add(m);
}

void PackedWeights::add(const LinearMap& m) {
  LLM0_CHECK(m.I >= 1 && m.O >= 1 && m.W, "pack_linear: a weight of [{}, {}] (needs >= 1 x 1, set)",
             m.O, m.I);
  const auto key = std::make_tuple(key_of(m.W), m.I, m.O);
  if (packs_.count(key)) return;
  PackedLinear shape;
  shape.I = m.I, shape.O = m.O, shape.bf16 = m.W.bf16 != nullptr;
  PackedLinear p = pack_linear(m.W, m.I, m.O, allocate(shape.bytes()));
  bytes_ += p.bytes();
  packs_.emplace(key, std::move(p));
}

const PackedLinear& PackedWeights::get(Weight W, int I, int O) const {
  const auto it = packs_.find({key_of(W), I, O});
  LLM0_CHECK(it != packs_.end(), "no packed panels for a linear map of [{}, {}] ({}): the layer "
             "computing it does not list it among its linear maps", O, I, W.bf16 ? "bf16" : "f32");
  return it->second;
}

std::shared_ptr<void> PackedWeights::allocate(size_t bytes) {
  constexpr size_t kHuge = (size_t)2 << 20, kChunk = (size_t)32 << 20, kAlign = 64;
  bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  if (!chunk_ || chunk_used_ + bytes > chunk_size_) {
    // A fresh chunk: whole 2 MiB pages; the untouched rest of the last one is never faulted in.
    chunk_size_ = std::max(kChunk, (bytes + kHuge - 1) / kHuge * kHuge);
    chunk_ = huge_page_buffer(chunk_size_, "packed weight panels");
    chunk_used_ = 0;
  }
  void* p = static_cast<char*>(chunk_.get()) + chunk_used_;
  chunk_used_ += bytes;
  return std::shared_ptr<void>(chunk_, p);  // shares the chunk's ownership
}

}  // namespace llm0
