// InferContext. See infer_context.h.
#include "model/infer_context.h"

#include "model/model.h"
#include "model/plan.h"

namespace llm0 {

InferContext::InferContext(const Model& model)
    : model_(model),
      scratch_(std::make_unique<InferScratch>()),
      counters_((size_t)model.config().num_hidden_layers) {
  set_fixed_order(true);
}

InferContext::~InferContext() = default;

void InferContext::set_fixed_order(bool on) {
  options_.linear.fixed_order = on;
  if (on) {
    panels_version_ = model_.weights_version();  // before: a concurrent change reads as stale
    panels_ = model_.panels();
  } else {
    panels_.reset();
  }
  options_.linear.panels = panels_.get();
}

WorkCounters InferContext::total_counters() const {
  WorkCounters t;
  for (const WorkCounters& c : counters_) {
    t.kv_projected += c.kv_projected, t.qk_scores += c.qk_scores;
    t.kv_bytes_read += c.kv_bytes_read, t.attn_macs += c.attn_macs;
  }
  return t;
}

void InferContext::reset_counters() { counters_.assign(counters_.size(), WorkCounters{}); }

}  // namespace llm0
