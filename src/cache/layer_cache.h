// Per-layer inference state (DESIGN.md "The layer interface"). A model's cache is the list of its
// layers' caches. Kinds: KV cache (this project's attention layers), latent cache (MLA) and
// recurrent state (linear attention) implement the same interface.
#pragma once
#include <cstddef>
#include <cstdint>

namespace llm0 {

/// What every per-layer cache reports. Positions are tokens, sizes bytes.
class LayerCache {
 public:
  virtual ~LayerCache() = default;
  /// Tokens stored (the next token goes to this position).
  virtual int length() const = 0;
  /// Maximum tokens this cache can hold; appending beyond it is an llm0::Error.
  virtual int capacity() const = 0;
  /// Bytes holding live state for the stored tokens (what `llm0 kv` computes per token × length,
  /// plus any fixed state), in the dtype actually stored.
  virtual size_t bytes_in_use() const = 0;
  /// Bytes allocated (capacity).
  virtual size_t bytes_allocated() const = 0;
  /// Forget all tokens (length 0); memory stays allocated.
  virtual void reset() = 0;
  /// Bytes per cached number: 4 (float32) or 2 (bfloat16, cache/cache_rows.h).
  virtual int bytes_per_number() const { return 4; }
};

/// The append rule of the position-ordered caches (KvCache, LatentCache): new positions start at
/// `length` and end within `capacity`. Throws llm0::Error naming `what` ("KV cache", "latent
/// cache") and both numbers.
void check_cache_append(const char* what, int pos, int n, int length, int capacity);

}  // namespace llm0
