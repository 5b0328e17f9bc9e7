// Parameter store. See params.h.
#include "core/params.h"

#include <cstring>

namespace llm0 {

void ParamStore::declare(const std::string& name, Shape shape) {
  LLM0_CHECK(!finalized_, "parameter {} declared after finalize()", name);
  LLM0_CHECK(!index_.count(name), "duplicate parameter name {}", name);
  ParamInfo p;
  p.name = name;
  p.numel = static_cast<size_t>(shape.numel());
  p.shape = std::move(shape);
  // Keep every parameter 64-byte aligned (16 floats) so BLAS and SIMD loops see aligned rows.
  p.offset = total_;
  total_ += (p.numel + 15) / 16 * 16;
  index_[name] = params_.size();
  params_.push_back(std::move(p));
}

void ParamStore::finalize() {
  LLM0_CHECK(!finalized_, "ParamStore finalized twice");
  data_ = aligned_zeros(total_);
  grad_ = aligned_zeros(total_);
  values_ = data_.get();
  finalized_ = true;
}

void ParamStore::finalize_sharing(ParamStore& owner) {
  LLM0_CHECK(!finalized_, "ParamStore finalized twice");
  LLM0_CHECK(owner.finalized_ && owner.total_ == total_ && owner.params_.size() == params_.size(),
             "a store sharing another's values must declare the same parameters");
  grad_ = aligned_zeros(total_);
  values_ = owner.values_;
  finalized_ = true;
}

void ParamStore::zero_grad() {
  if (grad_) std::memset(grad_.get(), 0, total_ * sizeof(float));
}

const ParamInfo& ParamStore::info(const std::string& name) const {
  auto it = index_.find(name);
  LLM0_CHECK(it != index_.end(), "no parameter named {}", name);
  return params_[it->second];
}

Tensor ParamStore::value_tensor(const std::string& name) {
  const ParamInfo& p = info(name);
  return Tensor::view(data() + p.offset, p.shape);
}

}  // namespace llm0
