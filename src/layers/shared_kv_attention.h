// Shared-KV attention: one projected vector per KV head serves as both key and value, as
// DeepSeek-V4's compressed attention does (DeepSeek-V4 report §2.3.3: one 512-dim entry per
// compressed position read as K and as V — half the cache of separate K and V rows). Positions
// enter through a separate rotary part, the last R = rotary_dim() dims of each head (as MLA's
// qk_rope part, DeepSeek-V2 arXiv:2405.04434 §2.1.3; interleaved pairs (2i, 2i+1), ops/rope.h):
//   s_j = rope_j(x_j · kv_projᵀ)               [Hkv, D]   the one cached row; K_j = V_j = s_j
//   q_i = rope_i(x_i · q_projᵀ)                [H, D]
//   p_ij = softmax_j(q_i,h · s_j,g / √D [, sink_h])     g = h / (H / Hkv), causal (ops/attention.h)
//   o_i,h = rope_{−i}(Σ_j p_ij s_j,g)          V carries the rotation of its position j, so the
//                                              output's rotary tail is turned back by −i: it then
//                                              depends on j − i only (DeepSeek-V4's fix)
//   y_i = o_i · o_projᵀ                        [C]
// Checkpoint names (llm0 extension; layer_types entry "shared_kv_attention"):
// model.layers.{i}.self_attn.{q_proj, kv_proj, o_proj}.weight (+ sinks [H] with
// attention_sinks). "kv_proj" because HF names a projection by what it produces (q_proj, k_proj,
// MLA's kv_a_proj_with_mqa) and this one produces the single row that is both K and V.
// Cache: Hkv·D numbers per token and layer, half of the GQA layer with the same Hkv and D.
// Double-precision reference: ops/ref/ref_shared_kv.h. Gradient rule: dx overwritten, parameter
// grads accumulate. Layouts: x, y [N, C], N = B·T rows in (b, t) order.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "config/config.h"
#include "layers/mixer_of.h"
#include "ops/attention.h"
#include "ops/attention_rows.h"
#include "ops/rope.h"
#include "ops/weight.h"

namespace llm0 {

/// Training activations of one shared-KV layer (views into the activation plan).
struct SharedKvSaved {
  float* q = nullptr;     // [N, H, D]   after RoPE on the last R dims
  float* s = nullptr;     // [N, Hkv, D] the shared K = V rows, after RoPE
  float* attn = nullptr;  // [N, H, D]   Σ_j p_ij s_j (rotary tail still at the keys' positions)
  float* o = nullptr;     // [N, H, D]   attn with its rotary tail turned back by −i: o_proj input
  float* lse = nullptr;   // [B, H, T]   softmax log-sum-exp
};

/// Backward scratch (views into the activation plan).
struct SharedKvGradScratch {
  float* dattn = nullptr;  // [N, H, D]
  float* dq = nullptr;     // [N, H, D]
  float* ds = nullptr;     // [N, Hkv, D] the row's gradient as a key, then as key + value
  float* dv = nullptr;     // [N, Hkv, D] the row's gradient as a value
};

/// Parameter views (values and gradients).
struct SharedKvWeights {
  Weight q_w, kv_w, o_w;           // [H·D, C], [Hkv·D, C], [C, H·D]; float32 or BF16 (inference)
  const float* sinks = nullptr;    // [H] sink logits (attention_sinks); null = none
  float *dq_w = nullptr, *dkv_w = nullptr, *do_w = nullptr, *dsinks = nullptr;
};

/// Inference scratch of one call on n new tokens.
struct SharedKvInferScratch {
  float* q = nullptr;     // [n, H, D]
  float* s = nullptr;     // [n, Hkv, D] new rows (before the cache stores them)
  float* attn = nullptr;  // [n, H, D]
};

/// The shared-KV mixer (layers/mixer.h): parameter table, buffer plan, cache spec (one K-only
/// row of Hkv·D numbers per token: a PagedKvCache row without V, one page of its own or the
/// server's pages), training forward/backward and the cached forward.
struct SharedKvAttentionLayer final
    : MixerOf<SharedKvSaved, SharedKvGradScratch, SharedKvInferScratch> {
  const ModelConfig* cfg = nullptr;  // checked: RoPE, no QK-norm, bias or output gate
  SharedKvWeights w;
  const RopeTable* rope = nullptr;  // cos/sin of the R rotary dims, owned by the model
  int il = 0;                       // layer index (error messages)

  SharedKvAttentionLayer() = default;
  SharedKvAttentionLayer(const ModelConfig& c, int layer_index, const RopeTable* rope_table)
      : cfg(&c), rope(rope_table), il(layer_index) {}

  /// Refuses what this mixer does not implement (layers/mixer_factory.cpp calls it before
  /// building one): position_embedding_type other than rope (positions live in the rows' rotary
  /// tail), use_qk_norm, attention_bias or qwen2's q/k/v bias, attn_output_gate (q, kv and o
  /// projections only). Throws llm0::Error naming c.source, the layer and config.json's field.
  static void check_config(const ModelConfig& c, int il);

  // ---- Mixer ----
  const char* kind_name() const override { return "shared_kv_attention"; }
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices(bool inference_bf16) override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  SharedKvSaved carve_saved(Arena& a, int B, int T) const override;
  SharedKvGradScratch carve_grads(Arena& a, int N) const override;
  SharedKvInferScratch carve_infer(Arena& a, int rows, int context) const override;
  CacheSpec cache_spec() const override;
  std::unique_ptr<LayerCache> make_cache(int capacity, const CacheStorage& st) const override;
  /// forward_cached appends each segment's new rows to its PagedKvCache (K row = the shared
  /// row, no V row) and attends over the rows as stored, in attention_paged_forward's fixed order.
  void forward_cached(const float* x, int N, const int* positions,
                      std::span<const BatchSegment> segs, const SharedKvInferScratch& g,
                      const InferOptions& opt, float* y, WorkCounters& counters) const override;
  /// attention_flops with d = head_dim (the shared row is read once as key and once as value).
  double flops_per_token(FlopPass pass, int context) const override;
  SavedAttention saved_attention(const SharedKvSaved& s) const override;

  // ---- the typed entry points (tests call them directly) ----
  /// q [N, H, D] and s [N, Hkv, D] from x [N, C], both with RoPE on the last R dims at positions[N].
  /// `lk`: the projections' kernel order (ops/matmul.h).
  void project(const float* x, int N, const int* positions, float* q, float* s,
               const LinearKernel& lk = {}) const;
  /// Training forward: y [N, C] for B sequences of T tokens; fills `saved` (g unused).
  void forward(const float* x, int B, int T, const int* positions, const SharedKvSaved& saved,
               const SharedKvGradScratch& g, float* y) const override;
  /// Training backward: dx [N, C] overwritten; parameter gradients accumulate.
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const SharedKvSaved& saved, const SharedKvGradScratch& g) const override;
  /// Cached attention of one sequence: q [n, H, D] of the new tokens at positions [pos, pos + n)
  /// over the rows of positions [0, pos + n) read through `rows` (K-only pages of `page_size`
  /// rows, float32 or BF16 bits: the same rows serve as values). attn [n, H, D] gets the outputs
  /// with their rotary tail turned back, in the fixed per-row order of attention_paged_forward
  /// (bitwise independent of n and of other sequences). Counts the work in `counters` (`bytes`:
  /// the cache's bytes per number).
  void attend_rows(const float* q, int n, int pos, const int* positions, const void* const* rows,
                   int page_size, bool bf16, float* attn, int bytes, WorkCounters& counters) const;
  /// y [n, C] = o_proj(attn [n, H, D]).
  void output(const float* attn, int n, float* y, const LinearKernel& lk = {}) const;

 private:
  AttentionDims dims(int B, int Tq, int Tk, int q_offset) const;
  int rotary_offset() const;  // D − R: the rotary part is the tail of each head
};

}  // namespace llm0
