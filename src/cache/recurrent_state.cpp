// Gated DeltaNet recurrent state. See recurrent_state.h.
#include "cache/recurrent_state.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

RecurrentState::RecurrentState(int capacity, const GatedDeltaNetConfig& c, ElementType window_dtype)
    : capacity_(capacity), window_rows_(c.linear_conv_kernel_dim - 1) {
  LLM0_CHECK(capacity > 0 && c.linear_num_value_heads > 0 && c.linear_key_head_dim > 0 &&
                 c.linear_value_head_dim > 0 && c.linear_conv_kernel_dim > 0,
             "recurrent state: capacity={} linear_num_value_heads={} linear_key_head_dim={} "
             "linear_value_head_dim={} linear_conv_kernel_dim={} must be > 0",
             capacity, c.linear_num_value_heads, c.linear_key_head_dim, c.linear_value_head_dim,
             c.linear_conv_kernel_dim);
  state_.assign((size_t)c.linear_num_value_heads * c.linear_key_head_dim *
                    c.linear_value_head_dim, 0.0f);
  window_ = CacheRows(window_rows_, c.conv_channels(), window_dtype);
  if (window_dtype == ElementType::BF16) window_f32_.assign((size_t)window_rows_ * c.conv_channels(), 0.0f);
}

float* RecurrentState::window() {
  if (window_.dtype() == ElementType::F32) return window_.f32();
  window_.read(0, window_rows_, window_f32_.data());
  return window_f32_.data();
}

void RecurrentState::store_window() {
  if (window_.dtype() == ElementType::BF16) window_.write(0, window_rows_, window_f32_.data());
}

size_t RecurrentState::bytes_in_use() const {
  return state_.size() * sizeof(float) + window_.bytes(window_rows_);
}

void RecurrentState::reset() {
  length_ = 0;
  std::fill(state_.begin(), state_.end(), 0.0f);
  const std::vector<float> zeros((size_t)window_rows_ * (size_t)window_.width(), 0.0f);
  window_.write(0, window_rows_, zeros.data());
}

void RecurrentState::check_append(int pos, int n) const {
  check_cache_append("recurrent state", pos, n, length_, capacity_);
}

void RecurrentState::commit(int n) {
  check_append(length_, n);
  length_ += n;
}

}  // namespace llm0
