// BatchEngine: many sequences through one Model, a step at a time (continuous batching, vLLM's
// scheduler model: Kwon et al., "Efficient Memory Management for Large Language Model Serving with
// PagedAttention", SOSP 2023). Each step is ONE ragged forward over the new tokens of every
// sequence in it (decode: 1 token, prefill: a chunk), so each weight matrix is read once per step
// for all of them. Full-attention K/V (and MLA's latent rows) live in fixed-size pages of one pool
// (cache/paged_kv_cache.h); full pages of an identical token prefix are shared between sequences
// (the prefix cache, reference-counted, copy-on-write at the first differing page). Sliding-window
// layers keep a ring of their last W positions and Gated DeltaNet layers a recurrent state per
// sequence, allocated at open() and counted in the pool's page budget; models with such layers run
// without the prefix cache (a ring or a recurrent state cannot be rebuilt from shared pages).
//
// Determinism contract: the logits of a sequence's token depend only on that sequence's tokens —
// never on which other sequences share the step, how its prompt was chunked, or whether its prefix
// came from the prefix cache (every op of the step computes each token row in the same order
// whatever the batch). The server's "greedy output equals the output alone" rests on this.
//
// Not thread-safe: one thread (the server's scheduler) owns it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/infer_context.h"
#include "model/model.h"

namespace llm0 {

/// Sizes of a BatchEngine's page pool.
struct BatchEngineOptions {
  int page_size = 16;        // tokens per page (>= 1)
  int num_pages = 0;         // pages in the pool (> 0), or 0: derive from kv_memory_bytes
  size_t kv_memory_bytes = 0;  // pool size in bytes when num_pages == 0 (> 0 then)
  bool prefix_cache = true;  // share full pages of identical prefixes
};

/// Handle of one sequence in a BatchEngine.
using SeqId = int;

class BatchEngine {
 public:
  /// Builds the page pool for `model` (which must outlive the engine). Throws llm0::Error for
  /// sizes out of range. The pool's page (page_size tokens of the full-attention layers' K and
  /// V and the MLA layers' latent rows) is the budget unit; without full-attention layers, page_size tokens of the sliding
  /// layers' K and V, or else one sequence's recurrent state.
  BatchEngine(Model& model, const BatchEngineOptions& options);
  /// Bytes of one page of the budget (see above) for `model` with pages of `page_size` tokens
  /// (>= 1): page_size × the paged layers' K/V numbers per token × the KV dtype's bytes, etc.
  static size_t page_bytes(const Model& model, int page_size);
  /// The engine's inference context: its work counters (every step's), scratch, and the
  /// fixed-order kernels reading the model's packed panels.
  InferContext& context();
  ~BatchEngine();
  BatchEngine(const BatchEngine&) = delete;
  BatchEngine& operator=(const BatchEngine&) = delete;

  /// Opens a sequence for `prompt` ([P], P >= 1, ids in [0, vocab_size)) and reserves pages for
  /// up to `reserve_tokens` tokens in all (prompt + tokens to generate; <= the model's context),
  /// plus ceil(state bytes / page bytes) pages for its sliding windows (min(W, reserve_tokens)
  /// positions each) and recurrent states.
  /// The longest prefix of full pages already cached is shared (cached_tokens() tells how many
  /// prompt tokens need no prefill). Returns nullopt, changing nothing, when the free pages (after
  /// evicting unreferenced prefix-cache pages) cannot cover the reservation: the caller waits.
  /// Throws llm0::Error for an empty prompt, an id out of range, reserve_tokens < P or > context.
  std::optional<SeqId> open(const std::vector<int>& prompt, int reserve_tokens);
  /// Prompt tokens whose K/V came from the prefix cache (a multiple of page_size, < P).
  int cached_tokens(SeqId id) const;
  /// Tokens whose K/V the sequence holds (the next token goes to this position).
  int length(SeqId id) const;

  /// New tokens of one sequence for a step: positions [length, length + n), n >= 1, within the
  /// sequence's reservation.
  struct Work {
    SeqId seq;
    const int* tokens;
    int n;
  };
  /// One forward over all works (each sequence at most once): appends their K/V to their pages
  /// and writes the logits of each work's LAST token to logits[i · V .. (i + 1) · V) (V =
  /// vocab_size). Throws llm0::Error for an unknown or repeated sequence, or a reservation
  /// overrun (nothing is appended then).
  void step(const std::vector<Work>& works, float* logits);

  /// Ends a sequence: its pages go back to the pool (full prompt pages stay in the prefix cache
  /// while unreferenced, until evicted). The id becomes invalid.
  void close(SeqId id);

  int page_size() const;
  int pages_total() const;
  /// Pages referenced by open sequences or reserved for them (their states' pages included).
  int pages_in_use() const;
  /// Unreferenced pages kept by the prefix cache (free for eviction).
  int pages_cached() const;
  /// Bytes of K/V and state held for the tokens of open sequences, shared pages counted once:
  /// what `llm0 kv` gives for each sequence's length (paged layers: per token × tokens;
  /// sliding layers: min(T, W) positions; linear layers: the fixed state).
  size_t bytes_in_use() const;
  /// Whether full prompt pages are shared (the option, unless the model has sliding-window or
  /// linear-attention layers, whose states cannot be rebuilt from shared pages).
  bool prefix_caching() const;
  /// Prompt tokens served from the prefix cache since construction.
  uint64_t prefix_hit_tokens() const;
  /// The sequence's page table: its reserved pages in position order (tests, metrics).
  const std::vector<int>& pages(SeqId id) const;
  /// Sequences referencing `page` (0: free or an unreferenced prefix-cache page).
  int page_refs(int page) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace llm0
