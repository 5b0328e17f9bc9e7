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

#include "cache/paged_kv_cache.h"
#include "cache/ring_kv_cache.h"
#include "config/config.h"
#include "layers/mixer_of.h"
#include "ops/attention.h"
#include "ops/rope.h"
#include "ops/weight.h"

namespace llm0 {

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

/// The attention mixer (layers/mixer.h): full or sliding-window attention. Its contract half
/// (parameter table, buffer plan, cache spec, FLOPs) is in layers/attention_mixer.cpp.
struct AttentionLayer final
    : MixerOf<AttentionSaved, AttentionGradScratch, AttentionInferScratch> {
  const ModelConfig* cfg = nullptr;
  LayerConfig layer;  // full or sliding (window W)
  AttentionWeights w;
  const RopeTable* rope = nullptr;  // cos/sin table (RoPE configs), owned by the model
  int il = 0;                       // layer index (error messages)

  AttentionLayer() = default;
  AttentionLayer(const ModelConfig& c, int layer_index, const RopeTable* rope_table)
      : cfg(&c), layer(c.layer(layer_index)), rope(rope_table), il(layer_index) {}

  // ---- Mixer ----
  const char* kind_name() const override;
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices(bool inference_bf16) override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  AttentionSaved carve_saved(Arena& a, int B, int T) const override;
  AttentionGradScratch carve_grads(Arena& a, int N) const override;
  AttentionInferScratch carve_infer(Arena& a, int rows, int context) const override;
  CacheSpec cache_spec() const override;
  std::unique_ptr<LayerCache> make_cache(int capacity, const CacheStorage& st) const override;
  /// attention_flops with d = head_dim. A sliding layer counts every one of the T (S) positions
  /// too, as the ledger always has (PaLM's convention has no window), although its q·k and p·v
  /// read at most W of them.
  double flops_per_token(FlopPass pass, int context) const override;
  SavedAttention saved_attention(const AttentionSaved& s) const override;

  /// q [N, H, D], k, v [N, Hkv, D] from x [N, C]: projections, QK-norm, RoPE at positions[N].
  /// q_raw/k_raw/q_rstd/k_rstd: QK-norm inputs and stats (scratch at inference, saved in training).
  /// With attn_output_gate, q_proj writes qg [N, H, 2·D] and the gates go to gate [N, H, D].
  /// `lk`: the projections' kernel order (ops/matmul.h).
  void project_qkv(const float* x, int N, const int* positions, float* q, float* k, float* v,
                   float* q_raw, float* k_raw, float* q_rstd, float* k_rstd, float* qg,
                   float* gate, const LinearKernel& lk = {}) const;

  /// Training forward: y [N, C] = o_proj(attention(x)) for B sequences of T tokens; fills s
  /// (g unused).
  void forward(const float* x, int B, int T, const int* positions, const AttentionSaved& s,
               const AttentionGradScratch& g, float* y) const override;
  /// Training backward: dx [N, C] overwritten; parameter gradients accumulate.
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const AttentionSaved& s, const AttentionGradScratch& g) const override;

  /// The cached forward (Mixer::forward_cached): x [N, C] = the new tokens of N >= 1 sequences
  /// (`segs`, in row order, positions[N] their absolute positions). Projections, QK-norm, RoPE,
  /// gate and o_proj run on all N rows at once (opt.linear's kernel order); each segment stores
  /// its K/V in its cache and attends with attention_paged_forward (one fixed order per query
  /// row): full layers through the page table of a PagedKvCache (a single sequence's cache is
  /// one page); sliding layers over their window (the ring's last W − 1 positions gathered,
  /// then the new rows) with the RingKvCache of the segment. y [N, C]. Throws llm0::Error if a
  /// cache is full, out of order or of the wrong kind.
  void forward_cached(const float* x, int N, const int* positions,
                      std::span<const BatchSegment> segs, const AttentionInferScratch& g,
                      const InferOptions& opt, float* y, WorkCounters& counters) const override;

 private:
  AttentionDims dims(int B, int Tq, int Tk, int q_offset) const;
  // Store each segment's new K/V rows (g.k_new, g.v_new) and attend (g.attn), per cache kind.
  void attend_paged(std::span<const BatchSegment> segs, const AttentionInferScratch& g,
                    WorkCounters& counters) const;
  void attend_ring(std::span<const BatchSegment> segs, const AttentionInferScratch& g,
                   WorkCounters& counters) const;
  // gate (attn_output_gate) and o_proj of the N rows in g.attn; counts their K/V projections.
  void output(int N, const AttentionInferScratch& g, const LinearKernel& lk, float* y,
              WorkCounters& counters) const;
};

}  // namespace llm0
