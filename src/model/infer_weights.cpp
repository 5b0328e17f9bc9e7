// BF16 weights for inference (Model::use_bf16_weights, see model.h): the matrices of the linear
// layers and lm_head rounded to BF16 into one buffer, the layers' Weight views rebound to it, and
// the float32 copies released, so a decode step reads 2 bytes per weight instead of 4.
#include <sys/mman.h>

#include <cstring>
#include <map>
#include <vector>

#include "model/model.h"
#include "ops/bf16_kernels.h"

namespace llm0 {

namespace {
// Gives the whole pages inside [p, p + bytes) back to the OS (they read as zeros afterwards).
void release_pages(void* p, size_t bytes) {
  const uintptr_t page = 4096, b = (uintptr_t)p, e = b + bytes;
  const uintptr_t first = (b + page - 1) / page * page, last = e / page * page;
  if (last > first) madvise((void*)first, last - first, MADV_DONTNEED);  // a hint: may fail
}
}  // namespace

void Model::use_bf16_weights() {
  if (bf16_weights()) return;
  // Every matrix view, once per distinct float32 matrix (attention and MLA share q_proj/o_proj).
  std::vector<Weight*> views;
  for (Block& b : blocks_)
    for (Weight* w : {&b.attn.w.q_w, &b.attn.w.k_w, &b.attn.w.v_w, &b.attn.w.o_w, &b.mla.w.q_w,
                      &b.mla.w.q_a_w, &b.mla.w.q_b_w, &b.mla.w.kv_a_w, &b.mla.w.o_w,
                      &b.mlp.w.gate_w, &b.mlp.w.up_w, &b.mlp.w.down_w})
      if (w->f32) views.push_back(w);
  views.push_back(&head_w_);
  std::map<size_t, size_t> numel_at;  // parameter offset -> numel
  for (const ParamInfo& p : params_.params()) numel_at[p.offset] = p.numel;
  std::map<const float*, size_t> at;  // matrix -> offset in the BF16 store (numbers)
  size_t total = 0;
  for (Weight* w : views)
    if (!at.count(w->f32)) {
      at[w->f32] = total;
      total += (numel_at.at((size_t)(w->f32 - params_.data())) + 31) / 32 * 32;  // 64-byte rows
    }
  bf16_store_ = aligned_zeros((total + 1) / 2);  // total BF16 numbers in float-sized slots
  auto* store = reinterpret_cast<uint16_t*>(bf16_store_.get());
  for (const auto& [f32, off] : at)
    bf16_round(store + off, f32, (long)numel_at.at((size_t)(f32 - params_.data())));
  for (Weight* w : views) *w = Weight::from_bf16(store + at.at(w->f32));
  bf16_numel_ = 0;
  for (const auto& [f32, off] : at) {
    const size_t n = numel_at.at((size_t)(f32 - params_.data()));
    bf16_numel_ += n;
    if (f32 != embed_w_) release_pages(const_cast<float*>(f32), n * sizeof(float));
  }
  release_pages(params_.grad(), params_.size() * sizeof(float));  // inference keeps no gradients
}

}  // namespace llm0
