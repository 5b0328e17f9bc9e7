// Cache of one Gated DeltaNet layer (arXiv:2412.06464; HF modeling_qwen3_next.py
// Qwen3NextDynamicCache: recurrent_states and conv_states): the delta-rule state S per value head
// [nv, dk, dv] and the last K−1 raw (pre-convolution) inputs of the conv channels [K−1, Cc]
// (Cc = 2·nk·dk + nv·dv), both float32 and of fixed size whatever the context — what `llm0 kv`
// counts as a linear layer's fixed state (state + conv window, no bytes per token).
#pragma once
#include <cstddef>
#include <vector>

#include "cache/layer_cache.h"
#include "model/gated_deltanet_config.h"

namespace llm0 {

class RecurrentState final : public LayerCache {
 public:
  /// Zero state and window. `capacity` is the position limit (the state itself never fills).
  /// Throws llm0::Error on non-positive sizes.
  RecurrentState(int capacity, const GatedDeltaNetConfig& cfg);

  int length() const override { return length_; }
  int capacity() const override { return capacity_; }
  /// (nv·dk·dv + (K−1)·Cc) × 4 bytes, at every length (the ledger's fixed state of the layer).
  size_t bytes_in_use() const override;
  size_t bytes_allocated() const override { return bytes_in_use(); }
  /// Length 0, S and the window zeroed (a new sequence starts from zero history).
  void reset() override;

  float* state() { return state_.data(); }     ///< [nv, dk, dv]
  float* window() { return window_.data(); }   ///< [K−1, Cc], oldest first
  /// Checks that tokens [pos, pos + n) may be appended: pos == length(), pos + n <= capacity().
  void check_append(int pos, int n) const;
  /// Marks n more positions as consumed.
  void commit(int n);

 private:
  int capacity_, length_ = 0;
  std::vector<float> state_, window_;
};

}  // namespace llm0
