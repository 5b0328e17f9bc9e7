// BF16 weights for inference (Model::use_bf16_weights, see model.h): the matrices of the linear
// layers (attention, MLA, MLP, routed and shared experts) and lm_head rounded to BF16 into one buffer, the layers' Weight views rebound to it, and
// the float32 copies released, so a decode step reads 2 bytes per weight instead of 4.
#include <malloc.h>
#include <sys/mman.h>

#include <cstring>
#include <map>
#include <vector>

#include "core/huge_pages.h"
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

std::vector<Weight*> Model::matrix_views(bool with_linear_attention) {
  // Every float32 matrix view of the mixers and feed-forwards (their contracts list them; Gated
  // DeltaNet's only for training products), then lm_head.
  std::vector<Weight*> views;
  for (Block& b : blocks_) {
    for (Weight* w : b.mixer->matrices(/*inference_bf16=*/!with_linear_attention))
      if (w->f32) views.push_back(w);
    for (Weight* w : b.ffn->matrices())
      if (w->f32) views.push_back(w);
  }
  if (head_w_.f32) views.push_back(&head_w_);
  return views;
}

void Model::set_bf16_products(bool on) {
  LLM0_CHECK(!bf16_weights(), "BF16 training products need the float32 master weights; this "
             "model holds BF16 inference weights");
  for (Weight* w : matrix_views(/*with_linear_attention=*/true)) w->bf16_products = on;
  bf16_products_ = on;
}

void Model::use_bf16_weights() {
  if (bf16_weights()) return;
  std::vector<Weight*> views = matrix_views(/*with_linear_attention=*/false);
  std::map<size_t, size_t> numel_at;  // parameter offset -> numel
  for (const ParamInfo& p : params_.params()) numel_at[p.offset] = p.numel;
  std::map<const float*, size_t> at;  // matrix -> offset in the BF16 store (numbers)
  size_t total = 0;
  for (Weight* w : views)
    if (!at.count(w->f32)) {
      at[w->f32] = total;
      total += (numel_at.at((size_t)(w->f32 - params_.data())) + 31) / 32 * 32;  // 64-byte rows
    }
  bf16_store_ = std::static_pointer_cast<uint16_t>(
      huge_page_buffer(total * sizeof(uint16_t), "the BF16 weights"));
  uint16_t* store = bf16_store_.get();
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
  {  // the float32 panels are stale (the weights moved): freed now, not at the next panels()
    std::lock_guard<std::mutex> lock(panels_mutex_);
    panels_.reset();
  }
#ifdef __GLIBC__
  malloc_trim(0);  // the checkpoint reader's freed buffers back to the OS as well
#endif
}

}  // namespace llm0
