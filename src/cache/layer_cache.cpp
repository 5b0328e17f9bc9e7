// Cache kind names and the append rule shared by the position-ordered caches. See layer_cache.h.
#include "cache/layer_cache.h"

#include "core/check.h"

namespace llm0 {

const char* cache_kind_name(CacheKind kind) {
  switch (kind) {
    case CacheKind::Ring: return "sliding-window (ring)";
    case CacheKind::Paged: return "paged KV";
    case CacheKind::Recurrent: return "recurrent-state";
  }
  return "unknown";
}

void check_cache_append(const char* what, int pos, int n, int length, int capacity) {
  LLM0_CHECK(pos == length, "{}: writing at position {} but {} tokens are cached", what, pos,
             length);
  LLM0_CHECK(n >= 0 && (long)pos + n <= capacity,
             "{} full: {} cached + {} new tokens exceed the capacity of {} tokens "
             "(max_position_embeddings or --max-context)", what, pos, n, capacity);
}

}  // namespace llm0
