// Attention layer of a Llama/Mistral/Qwen2/Qwen3/GPT-2-style block: q/k/v/o projections (optional
// bias, `attention_bias`; Qwen2: q/k/v only), optional QK-norm (Qwen3: per-head RMSNorm of q and k
// over head_dim, before RoPE), RoPE on q and k (full or partial rotary; never v), causal
// grouped-query attention (MHA: Hkv = H, GQA, MQA: Hkv = 1), over the last W keys on sliding
// layers, with optional per-head sink logits (gpt-oss), an optional sigmoid output gate
// (attn_output_gate: Qwen3-Next's gated attention, layers/attention_gate.h), and the output
// projection.
// HF reference: transformers/models/qwen3/modeling_qwen3.py Qwen3Attention.forward; sliding
// window and sinks as transformers/models/gpt_oss/modeling_gpt_oss.py GptOssAttention.
// Layouts: x, y [N, C] with N = B·T rows in (b, t) order; q [N, H, D]; k, v [N, Hkv, D].
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "cache/kv_cache.h"
#include "cache/paged_kv_cache.h"
#include "cache/ring_kv_cache.h"
#include "config/config.h"
#include "ops/attention.h"
#include "ops/rope.h"
#include "ops/weight.h"

namespace llm0 {

/// Work the engine really did, per layer (DESIGN.md "Counters").
struct WorkCounters {
  uint64_t kv_projected = 0;  // K/V vectors projected: one per token per layer (K and V together)
  uint64_t qk_scores = 0;     // q·k dot products that entered a softmax (visible pairs × heads)
  uint64_t kv_bytes_read = 0; // cached K/V bytes the attention read (rows visible to the call)
  uint64_t attn_macs = 0;     // multiply-adds on cached positions: scores and weighted sums (+ MLA's
                              // latent expansion or query absorption); projections not included
  std::vector<uint64_t> expert_tokens;  // [E] tokens routed to each expert (MoE layers; else empty)
};

/// Training activations of one attention layer (views into the activation plan).
struct AttentionSaved {
  float* q_raw = nullptr;   // [N, H, D]   projections before QK-norm (QK-norm only)
  float* k_raw = nullptr;   // [N, Hkv, D]
  float* q_rstd = nullptr;  // [N, H]      QK-norm stats
  float* k_rstd = nullptr;  // [N, Hkv]
  float* q = nullptr;       // [N, H, D]   after QK-norm and RoPE
  float* k = nullptr;       // [N, Hkv, D]
  float* v = nullptr;       // [N, Hkv, D]
  float* attn = nullptr;    // [N, H, D]   attention output = o_proj input
  float* lse = nullptr;     // [B, H, T]   softmax log-sum-exp
  float* qg = nullptr;      // [N, H, 2·D] q_proj output [query | gate] (attn_output_gate only)
  float* gate = nullptr;    // [N, H, D]
  float* attn_gated = nullptr;  // [N, H, D] attn ⊙ σ(gate) = o_proj input
};

/// Backward scratch shared by all layers (views into the activation plan).
struct AttentionGradScratch {
  float* dattn = nullptr;   // [N, H, D]
  float* dq = nullptr;      // [N, H, D]
  float* dk = nullptr;      // [N, Hkv, D]
  float* dv = nullptr;      // [N, Hkv, D]
  float* dq_raw = nullptr;  // [N, H, D]   (QK-norm only)
  float* dk_raw = nullptr;  // [N, Hkv, D]
  float* dqg = nullptr;     // [N, H, 2·D] (attn_output_gate only)
  float* dgate = nullptr;   // [N, H, D]
};

/// Parameter views (values and gradients) of one attention layer. Biases/norms may be null.
struct AttentionWeights {
  Weight q_w, k_w, v_w, o_w;  // float32 or BF16 (inference)
  const float *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *o_b = nullptr;
  const float *q_norm = nullptr, *k_norm = nullptr;  // [D] QK-norm weights
  const float* sinks = nullptr;                      // [H] sink logits (attention_sinks)
  float* dsinks = nullptr;
  float *dq_w = nullptr, *dq_b = nullptr, *dk_w = nullptr, *dk_b = nullptr;
  float *dv_w = nullptr, *dv_b = nullptr, *do_w = nullptr, *do_b = nullptr;
  float *dq_norm = nullptr, *dk_norm = nullptr;
};

/// Inference scratch of one attention call on Tn new tokens (views sized by the model's plan).
struct AttentionInferScratch {
  float *q = nullptr, *q_raw = nullptr;  // [Tn, H, D]
  float* k_raw = nullptr;                // [Tn, Hkv, D]
  float* rstd = nullptr;                 // [Tn, H + Hkv]
  float* attn = nullptr;                 // [Tn, H, D]
  float *k_win = nullptr, *v_win = nullptr;  // [W - 1 + Tn, Hkv, D] (sliding layers)
  float *qg = nullptr, *gate = nullptr;      // [Tn, H, 2·D], [Tn, H, D] (attn_output_gate)
  float *k_new = nullptr, *v_new = nullptr;  // [Tn, Hkv, D] new K/V rows (paged caches)
};

/// One sequence's rows in a ragged batch (the serving engine's step): rows [row0, row0 + n) of
/// x [N, C] are its new tokens at positions [pos, pos + n); their state goes to `cache`, this
/// layer's cache of that sequence: a PagedKvCache (full attention), a RingKvCache (sliding
/// window) or a RecurrentState (Gated DeltaNet).
struct BatchSegment {
  int row0 = 0, n = 0, pos = 0;
  LayerCache* cache = nullptr;
};

struct AttentionLayer {
  const ModelConfig* cfg = nullptr;
  LayerConfig layer;  // full or sliding (window W)
  AttentionWeights w;
  const RopeTable* rope = nullptr;  // cos/sin table (RoPE configs), owned by the model

  /// q [N, H, D], k, v [N, Hkv, D] from x [N, C]: projections, QK-norm, RoPE at positions[N].
  /// q_raw/k_raw/q_rstd/k_rstd: QK-norm inputs and stats (scratch at inference, saved in training).
  /// With attn_output_gate, q_proj writes qg [N, H, 2·D] and the gates go to gate [N, H, D].
  void project_qkv(const float* x, int N, const int* positions, float* q, float* k, float* v,
                   float* q_raw, float* k_raw, float* q_rstd, float* k_rstd, float* qg,
                   float* gate) const;

  /// Training forward: y [N, C] = o_proj(attention(x)) for B sequences of T tokens.
  void forward(const float* x, int B, int T, const int* positions, AttentionSaved& s,
               float* y) const;
  /// Training backward: dx [N, C] overwritten; parameter gradients accumulate.
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const AttentionSaved& s, const AttentionGradScratch& g) const;

  /// Inference on Tn tokens at positions [pos, pos + Tn): appends their K/V to `cache` (a KvCache
  /// for full layers, a RingKvCache for sliding ones) and attends over the visible cached keys.
  /// Throws llm0::Error if the cache is full or of the wrong kind.
  void forward_cached(const float* x, int Tn, int pos, const int* positions, LayerCache& cache,
                      const AttentionInferScratch& g, float* y, WorkCounters& counters) const;
  /// Ragged batch inference: x [N, C] = the new tokens of several sequences (`segs`, in row
  /// order, positions[N] their absolute positions). Projections, QK-norm, RoPE, gate and o_proj
  /// run on all N rows at once; each segment stores its K/V in its cache and attends with
  /// attention_paged_forward (one fixed order per query row): full layers through the page
  /// table of a PagedKvCache; sliding layers over their window (the ring's last W − 1 positions
  /// gathered, then the new rows) with the RingKvCache of the segment. y [N, C]. Throws
  /// llm0::Error as forward_cached, or for a segment cache of the wrong kind.
  void forward_batch(const float* x, int N, const int* positions,
                     std::span<const BatchSegment> segs, const AttentionInferScratch& g, float* y,
                     WorkCounters& counters) const;

 private:
  AttentionDims dims(int B, int Tq, int Tk, int q_offset) const;
  // Project the Tn new tokens, store their K/V and attend (g.attn), per cache kind.
  void attend_full(const float* x, int Tn, int pos, const int* positions, KvCache& cache,
                   const AttentionInferScratch& g, WorkCounters& counters) const;
  void attend_paged(std::span<const BatchSegment> segs, const AttentionInferScratch& g,
                    WorkCounters& counters) const;
  void attend_ring(std::span<const BatchSegment> segs, const AttentionInferScratch& g,
                   WorkCounters& counters) const;
  // gate (attn_output_gate) and o_proj of the N rows in g.attn; counts their K/V projections.
  void output(int N, const AttentionInferScratch& g, float* y, WorkCounters& counters) const;
  void attend_sliding(const float* x, int Tn, int pos, const int* positions, RingKvCache& cache,
                      const AttentionInferScratch& g, WorkCounters& counters) const;
};

}  // namespace llm0
