// Gated DeltaNet recurrent state. See recurrent_state.h.
#include "cache/recurrent_state.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

RecurrentState::RecurrentState(int capacity, const GatedDeltaNetConfig& c) : capacity_(capacity) {
  LLM0_CHECK(capacity > 0 && c.linear_num_value_heads > 0 && c.linear_key_head_dim > 0 &&
                 c.linear_value_head_dim > 0 && c.linear_conv_kernel_dim > 0,
             "recurrent state: capacity={} linear_num_value_heads={} linear_key_head_dim={} "
             "linear_value_head_dim={} linear_conv_kernel_dim={} must be > 0",
             capacity, c.linear_num_value_heads, c.linear_key_head_dim, c.linear_value_head_dim,
             c.linear_conv_kernel_dim);
  state_.assign((size_t)c.linear_num_value_heads * c.linear_key_head_dim *
                    c.linear_value_head_dim, 0.0f);
  window_.assign((size_t)(c.linear_conv_kernel_dim - 1) * c.conv_channels(), 0.0f);
}

size_t RecurrentState::bytes_in_use() const {
  return (state_.size() + window_.size()) * sizeof(float);
}

void RecurrentState::reset() {
  length_ = 0;
  std::fill(state_.begin(), state_.end(), 0.0f);
  std::fill(window_.begin(), window_.end(), 0.0f);
}

void RecurrentState::check_append(int pos, int n) const {
  check_cache_append("recurrent state", pos, n, length_, capacity_);
}

void RecurrentState::commit(int n) {
  check_append(length_, n);
  length_ += n;
}

}  // namespace llm0
