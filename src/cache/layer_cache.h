// Per-layer inference state (DESIGN.md "The layer interface"). A model's cache is the list of its
// layers' caches. Kinds, one class each: the paged KV cache (full attention's K/V rows, or K-only
// rows: MLA's latents, shared-KV attention's one row; the server's pages, or one page of a
// single sequence's own), ring KV cache (sliding window) and recurrent state (linear attention) implement the
// same interface and carry a kind tag, so a mixer converts the LayerCache it made back to its own
// class in one checked place (cache_as). What a layer caches is its CacheSpec (vLLM's
// KVCacheSpec: vllm/v1/kv_cache_interface.py), read by the server's page budget, the lessons
// and the ledger's tests instead of the layer kind.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/check.h"

namespace llm0 {

/// The concrete class of a LayerCache (its tag; see cache_as).
enum class CacheKind { Ring, Paged, Recurrent };

/// "sliding-window (ring)", "paged KV", "recurrent-state".
const char* cache_kind_name(CacheKind kind);

/// What every per-layer cache reports. Positions are tokens, sizes bytes.
class LayerCache {
 public:
  virtual ~LayerCache() = default;
  /// The concrete class (cache_as checks it).
  virtual CacheKind kind() const = 0;
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

/// The one checked conversion of a layer's cache to the class its mixer works with (T::kKind).
/// Throws llm0::Error naming layer `il`, its kind `what` ("sliding_attention", ...), the cache
/// class it needs and the one it got.
template <class T>
T& cache_as(LayerCache& c, int il, const char* what) {
  LLM0_CHECK(c.kind() == T::kKind, "layer {} ({}) needs a {} cache, got a {} cache", il, what,
             cache_kind_name(T::kKind), cache_kind_name(c.kind()));
  return static_cast<T&>(c);
}

/// What one layer keeps per sequence (vLLM's KVCacheSpec). Numbers are stored in the cache's
/// dtype (4 or 2 bytes) except `state_f32_numbers`, which are float32 always (the delta-rule S).
struct CacheSpec {
  int k_numbers = 0;    ///< per token: the K row (MLA: the latent row [c_kv | k_pe]); 0: none
  int v_numbers = 0;    ///< per token: the V row; 0: none (MLA, linear attention)
  int window = 0;       ///< 0: every position is held; W > 0: only the last W (a ring)
  size_t state_numbers = 0;      ///< per sequence, fixed: in the cache dtype (conv window)
  size_t state_f32_numbers = 0;  ///< per sequence, fixed: float32 (recurrent state)
  CacheKind cache = CacheKind::Paged;  ///< the class of the cache the layer makes

  /// Numbers per held token (K + V rows).
  int token_numbers() const { return k_numbers + v_numbers; }
  /// Rows per token that may live in the server's page pool: every position held.
  bool pageable() const { return window == 0 && token_numbers() > 0; }
  /// A fixed-size state only: no bytes per token (linear attention).
  bool fixed_state() const { return token_numbers() == 0; }
  /// Bytes held after `length` tokens with `bytes_per_number` (4 or 2) per cached number.
  size_t bytes(long length, int bytes_per_number) const {
    const long held = window > 0 ? std::min(length, (long)window) : length;
    return ((size_t)held * (size_t)token_numbers() + state_numbers) * (size_t)bytes_per_number +
           state_f32_numbers * sizeof(float);
  }
};

/// The append rule of the position-ordered caches (PagedKvCache, RecurrentState): new positions
/// start at `length` and end within `capacity`. Throws llm0::Error naming `what` ("paged KV
/// cache", "recurrent state") and both numbers.
void check_cache_append(const char* what, int pos, int n, int length, int capacity);

}  // namespace llm0
