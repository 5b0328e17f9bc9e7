// Model::panels: the packed copies of the weights every fixed-order inference context reads.
// See model.h; the store and its layout are ops/linear_pack.h.
#include "model/model.h"
#include "ops/linear_pack.h"

namespace llm0 {

std::shared_ptr<const PackedWeights> Model::panels() const {
  std::lock_guard<std::mutex> lock(panels_mutex_);
  const uint64_t version = weights_version();
  if (panels_ && panels_version_ == version) return panels_;
  panels_.reset();  // the stale copy goes now (contexts still holding it keep it alive)
  std::vector<LinearMap> maps;  // in a forward's order: the copies lie in the order they stream
  for (const Block& b : blocks_) {
    for (const LinearMap& m : b.mixer->linear_maps()) maps.push_back(m);
    for (const LinearMap& m : b.ffn->linear_maps()) maps.push_back(m);
  }
  maps.push_back({head_w_, cfg_.hidden_size, cfg_.vocab_size});
  panels_ = std::make_shared<const PackedWeights>(maps);
  panels_version_ = version;
  return panels_;
}

size_t Model::panel_bytes() const {
  std::lock_guard<std::mutex> lock(panels_mutex_);
  return panels_ ? panels_->bytes() : 0;
}

}  // namespace llm0
