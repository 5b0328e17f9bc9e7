// Cache of one Gated DeltaNet layer (arXiv:2412.06464; HF modeling_qwen3_next.py
// Qwen3NextDynamicCache: recurrent_states and conv_states): the delta-rule state S per value head
// [nv, dk, dv] and the last K−1 raw (pre-convolution) inputs of the conv channels [K−1, Cc]
// (Cc = 2·nk·dk + nv·dv), of fixed size whatever the context — what `llm0 kv` counts as a linear
// layer's fixed state (state + conv window, no bytes per token). S is float32 always (HF keeps the
// recurrent state in float32); the window is stored in the cache dtype (`--kv-dtype`: bf16 rounds
// the raw inputs as K/V are rounded), as the ledger counts it.
#pragma once
#include <cstddef>
#include <vector>

#include "cache/cache_rows.h"
#include "cache/layer_cache.h"
#include "config/gated_deltanet_config.h"

namespace llm0 {

class RecurrentState final : public LayerCache {
 public:
  static constexpr CacheKind kKind = CacheKind::Recurrent;
  CacheKind kind() const override { return kKind; }
  /// Zero state and window. `capacity` is the position limit (the state itself never fills);
  /// `window_dtype` the element type of the conv window. Throws llm0::Error on non-positive sizes.
  RecurrentState(int capacity, const GatedDeltaNetConfig& cfg,
                 ElementType window_dtype = ElementType::F32);

  int length() const override { return length_; }
  int capacity() const override { return capacity_; }
  /// nv·dk·dv × 4 + (K−1)·Cc × (4 or 2 for a bf16 window) bytes, at every length (the ledger's
  /// fixed state of the layer).
  size_t bytes_in_use() const override;
  size_t bytes_allocated() const override { return bytes_in_use(); }
  /// Length 0, S and the window zeroed (a new sequence starts from zero history).
  void reset() override;

  float* state() { return state_.data(); }     ///< [nv, dk, dv]
  /// Element type of the conv window.
  ElementType window_dtype() const { return window_.dtype(); }
  /// The window [K−1, Cc], oldest first, as float32: the store itself (f32), or widened into a
  /// working copy (bf16) that store_window() rounds back.
  float* window();
  /// Stores the working copy of a bf16 window (no-op for f32). Call after changing window().
  void store_window();
  /// Checks that tokens [pos, pos + n) may be appended: pos == length(), pos + n <= capacity().
  void check_append(int pos, int n) const;
  /// Marks n more positions as consumed.
  void commit(int n);

 private:
  int capacity_, length_ = 0;
  int window_rows_;
  std::vector<float> state_;
  CacheRows window_;                 // [K−1, Cc] in the cache dtype
  std::vector<float> window_f32_;    // bf16 only: the widened working copy
};

}  // namespace llm0
