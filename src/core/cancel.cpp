// Cancellation at step boundaries (cancel.h).
#include "core/cancel.h"

#include <utility>

namespace llm0 {

namespace {
thread_local CancelScope* tl_scope = nullptr;
}  // namespace

CancelScope::CancelScope(std::function<bool()> stop) : stop_(std::move(stop)), outer_(tl_scope) { tl_scope = this; }

CancelScope::~CancelScope() { tl_scope = outer_; }

void cancel_point() {
  CancelScope* s = tl_scope;
  if (!s) return;
  if (!s->fired_ && s->stop_ && s->stop_()) s->fired_ = true;
  if (s->fired_) throw Cancelled();
}

}  // namespace llm0
