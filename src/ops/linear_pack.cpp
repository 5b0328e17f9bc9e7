// Panel packing of linear weights. See linear_pack.h.
#include "ops/linear_pack.h"

#include <cstring>

#include "core/check.h"
#include "core/huge_pages.h"

namespace llm0 {

namespace {
thread_local PackedWeights* t_store = nullptr;

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

PackedLinear pack_linear(Weight W, int I, int O) {
  LLM0_CHECK(I >= 1 && O >= 1 && W, "pack_linear: a weight of [{}, {}] (needs >= 1 x 1, set)", O, I);
  PackedLinear r;
  r.I = I, r.O = O, r.bf16 = W.bf16 != nullptr;
  r.data = huge_page_buffer(r.bytes(), "packed weight panels");  // zeroed: the padding
  if (W.bf16) pack(static_cast<uint16_t*>(r.data.get()), W.bf16, I, O);
  else pack(static_cast<float*>(r.data.get()), W.f32, I, O);
  return r;
}

const PackedLinear& PackedWeights::get(Weight W, int I, int O) {
  const void* key = W.bf16 ? (const void*)W.bf16 : (const void*)W.f32;
  auto it = packs_.find({key, I, O});
  if (it != packs_.end()) return it->second;
  PackedLinear p = pack_linear(W, I, O);
  bytes_ += p.bytes();
  return packs_.emplace(std::make_tuple(key, I, O), std::move(p)).first->second;
}

UsePackedWeights::UsePackedWeights(PackedWeights& store) : previous_(t_store) { t_store = &store; }
UsePackedWeights::~UsePackedWeights() { t_store = previous_; }

PackedWeights* packed_weights() { return t_store; }

}  // namespace llm0
