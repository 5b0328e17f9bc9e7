// The stop request's flag. See stop_request.h.
#include "train/stop_request.h"

#include <atomic>

namespace llm0 {

namespace {
std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler sets the flag");
}  // namespace

void request_stop() { requested.store(true, std::memory_order_relaxed); }
bool stop_requested() { return requested.load(std::memory_order_relaxed); }
void clear_stop_request() { requested.store(false, std::memory_order_relaxed); }

}  // namespace llm0
