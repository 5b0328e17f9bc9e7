// Parameter store: every parameter of a model lives in ONE contiguous float buffer, its gradient
// in a second buffer of the same size (DESIGN.md "Parameter store"). Each parameter is a named
// view with its Hugging Face name ("model.layers.3.self_attn.q_proj.weight") and PyTorch shape
// (linear weights [out_features, in_features]). The optimizer is then one loop over the buffer,
// and checkpoint I/O a walk over names.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"

namespace llm0 {

/// One named parameter: [offset, offset + numel) in the store's buffers.
struct ParamInfo {
  std::string name;  // Hugging Face name
  Shape shape;       // PyTorch shape
  size_t offset = 0; // in floats
  size_t numel = 0;
};

class ParamStore {
 public:
  /// Declares a parameter; call before finalize(). Throws llm0::Error on a duplicate name.
  void declare(const std::string& name, Shape shape);
  /// Allocates the value and gradient buffers (zero-filled). Views are valid after this.
  void finalize();
  /// Instead of finalize(): the values are `owner`'s buffer (read and written through it, not
  /// copied), the gradients a zero-filled buffer of this store's own — a training lane
  /// (train/thread_lanes.h). `owner` must have declared the same parameters, be finalized and
  /// outlive this store; writes through this store count in this store's version() only.
  /// Throws llm0::Error if this store is finalized or the parameters differ.
  void finalize_sharing(ParamStore& owner);

  size_t size() const { return total_; }                 // floats in each buffer
  /// The values, writable: counts as a change of the weights (see version()).
  float* data() { return touch(), values_; }
  const float* data() const { return values_; }
  float* grad() { return grad_.get(); }
  const float* grad() const { return grad_.get(); }
  void zero_grad();

  const std::vector<ParamInfo>& params() const { return params_; }
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  /// Info for `name`. Throws llm0::Error naming the parameter if it does not exist.
  const ParamInfo& info(const std::string& name) const;
  /// Pointer to the value / gradient of `name` (after finalize()). The writable value counts as a
  /// change of the weights (see version()).
  float* value(const std::string& name) { return touch(), values_ + info(name).offset; }
  const float* value(const std::string& name) const { return values_ + info(name).offset; }
  float* gradient(const std::string& name) { return grad_.get() + info(name).offset; }
  Tensor value_tensor(const std::string& name);
  /// How many times write access to the values was handed out (the non-const data(), value(),
  /// value_tensor()): every writer — a load, an optimizer step, an initializer — takes it, so
  /// copies made from the values (a model's packed panels, model/model.h) know they are stale
  /// when it moved. A pointer kept from an earlier call and written through later is not seen.
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }

 private:
  void touch() { version_.fetch_add(1, std::memory_order_relaxed); }

  std::vector<ParamInfo> params_;
  std::unordered_map<std::string, size_t> index_;
  size_t total_ = 0;
  bool finalized_ = false;
  AlignedBuffer data_, grad_;
  float* values_ = nullptr;  // data_, or the owner's (finalize_sharing)
  std::atomic<uint64_t> version_{0};
};

}  // namespace llm0
