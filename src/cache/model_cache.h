// A model's inference state: one LayerCache per layer (DESIGN.md), all at the same length, each
// made by its layer's mixer (layers/mixer.h Mixer::make_cache). Its byte
// size is what `llm0 kv` computes for the same config and length in float32.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "cache/layer_cache.h"
#include "core/check.h"

namespace llm0 {

class ModelCache {
 public:
  void add(std::unique_ptr<LayerCache> layer) { layers_.push_back(std::move(layer)); }
  int num_layers() const { return (int)layers_.size(); }
  LayerCache& layer(int il) { return *layers_.at((size_t)il); }
  /// Tokens cached (layer 0's length; all layers agree).
  int length() const { return layers_.empty() ? 0 : layers_[0]->length(); }
  /// Tokens the cache can take in all: the minimum over layers (a sliding layer's is its position
  /// limit, not its window).
  int capacity() const {
    int c = layers_.empty() ? 0 : layers_[0]->capacity();
    for (const auto& l : layers_) c = std::min(c, l->capacity());
    return c;
  }
  /// Σ over layers of bytes holding state for the cached tokens.
  size_t bytes_in_use() const {
    size_t s = 0;
    for (const auto& l : layers_) s += l->bytes_in_use();
    return s;
  }
  size_t bytes_allocated() const {
    size_t s = 0;
    for (const auto& l : layers_) s += l->bytes_allocated();
    return s;
  }
  void reset() {
    for (auto& l : layers_) l->reset();
  }

 private:
  std::vector<std::unique_ptr<LayerCache>> layers_;
};

}  // namespace llm0
