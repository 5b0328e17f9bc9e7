// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434 §2.1, eqs. 9–19; HF
// transformers/models/deepseek_v2/modeling_deepseek_v2.py DeepseekV2Attention). Symbols: C
// hidden, H heads, dn = qk_nope_head_dim, dr = qk_rope_head_dim, dv = v_head_dim, r =
// kv_lora_rank, qr = q_lora_rank, D = dn + dr.
//   query   q = x·q_projᵀ, or q = rmsnorm(x·q_a_projᵀ)·q_b_projᵀ        [N, H, D], per head [q_nope | q_pe]
//   latent  [c_kv | k_pe] = x·kv_a_proj_with_mqaᵀ                      [N, r + dr]; k_pe is ONE head
//           c = rmsnorm(c_kv) (kv_a_layernorm, eps 1e-6)                [N, r]  — cached with k_pe
//   expand  [k_nope | v] = c·kv_b_projᵀ per head                        [N, H, dn + dv]
//   RoPE    on q_pe and k_pe only, interleaved pairs (2i, 2i+1) (ops/rope.h), not rotate-half
//   scores  (q_nope·k_nope + q_pe·k_pe) / sqrt(D); out = o_proj(softmax · v)   [N, C]
// Decode forms (the cache holds [c | k_pe] per token, r + dr numbers): *expanded* recomputes
// k_nope and v of every cached token with kv_b_proj; *absorbed* folds W_UK,h into the query,
// q_lat,h = W_UK,hᵀ q_nope,h [r], scores q_lat,h·c_j + q_pe,h·k_pe_j (one shared "KV head" of
// width r + dr, scale still 1/sqrt(D)), and applies W_UV,h to the weighted sum of latents.
// Training uses the expanded form. Gradient rule: dx overwritten, parameter grads accumulate.
#pragma once
#include <cstdint>
#include <span>

#include "cache/paged_kv_cache.h"
#include "config/config.h"
#include "layers/attention.h"
#include "layers/mixer_of.h"
#include "ops/attention.h"
#include "ops/rope.h"
#include "ops/weight.h"

namespace llm0 {

/// Training activations of one MLA layer (views into the activation plan). N = B·T.
struct MlaSaved {
  float *cq = nullptr, *cq_n = nullptr;  // [N, qr] q_a_proj output, after q_a_layernorm (qr > 0)
  float* cq_rstd = nullptr;              // [N]
  float* kv_a = nullptr;                 // [N, r + dr] kv_a_proj_with_mqa output, RoPE on k_pe
  float* c_raw = nullptr;                // [N, r] c_kv before kv_a_layernorm
  float* c = nullptr;                    // [N, r] c_kv after kv_a_layernorm
  float* c_rstd = nullptr;               // [N]
  float* q = nullptr;                    // [N, H, D] after RoPE on q_pe
  float* k = nullptr;                    // [N, H, D] [k_nope_h | k_pe (shared, after RoPE)]
  float* v = nullptr;                    // [N, H, dv]
  float* attn = nullptr;                 // [N, H, dv] o_proj input
  float* lse = nullptr;                  // [B, H, T]
};

/// Backward scratch shared by all MLA layers.
struct MlaGradScratch {
  float* dattn = nullptr;          // [N, H, dv]
  float *dq = nullptr, *dk = nullptr;  // [N, H, D]
  float* dv = nullptr;             // [N, H, dv]
  float* dkv = nullptr;            // [N, H, dn + dv]
  float* dkv_a = nullptr;          // [N, r + dr]
  float *dc = nullptr, *dc_raw = nullptr;    // [N, r]
  float *dcq = nullptr, *dcq_raw = nullptr;  // [N, qr]
};

/// Inference scratch: `rows` new tokens, `context` cached positions (expanded form).
struct MlaInferScratch {
  float* q = nullptr;                     // [rows, H, D]
  float *cq = nullptr, *cq_n = nullptr;   // [rows, qr]
  float* kv_a = nullptr;                  // [rows, r + dr]
  float *c_raw = nullptr, *c = nullptr;   // [rows, r]
  float* attn = nullptr;                  // [rows, H, dv]
  float* q_abs = nullptr;                 // [rows, H, r + dr] absorbed queries
  float* o_lat = nullptr;                 // [rows, H, r] absorbed: weighted sums of latents
  float* lat = nullptr;                   // [context, r + dr] expanded: the rows as float32
  float* kv = nullptr;                    // [context, H, dn + dv] expanded: re-created k_nope, v
  float *k = nullptr, *v = nullptr;       // [context, H, D], [context, H, dv]
};

/// Parameter views (values and gradients). q_w xor (q_a_w, q_a_norm, q_b_w); biases null unless
/// attention_bias (HF: on q_a_proj, kv_a_proj_with_mqa and o_proj only).
struct MlaWeights {
  Weight q_w, q_a_w, q_b_w, kv_a_w, o_w;  // float32 or BF16 (inference)
  const float *q_a_b = nullptr, *q_a_norm = nullptr, *kv_a_b = nullptr, *kv_a_norm = nullptr;
  const float* kv_b_w = nullptr;  // float32 always: absorbed decode slices it per head
  const float* o_b = nullptr;
  float *dq_w = nullptr, *dq_a_w = nullptr, *dq_a_b = nullptr, *dq_a_norm = nullptr;
  float *dq_b_w = nullptr, *dkv_a_w = nullptr, *dkv_a_b = nullptr, *dkv_a_norm = nullptr;
  float *dkv_b_w = nullptr, *do_w = nullptr, *do_b = nullptr;
};

/// The latent-attention mixer (layers/mixer.h; the decode form: MlaDecode there). Its contract
/// half (parameter table, buffer plan, cache spec, FLOPs) is in layers/mla_mixer.cpp.
struct MlaLayer final : MixerOf<MlaSaved, MlaGradScratch, MlaInferScratch> {
  static constexpr float kLatentEps = 1e-6f;  // q_a_layernorm / kv_a_layernorm (HF default)
  const ModelConfig* cfg = nullptr;
  MlaWeights w;
  const RopeTable* rope = nullptr;  // cos/sin of the dr rotary dims, owned by the model
  int il = 0;                       // layer index (error messages)

  MlaLayer() = default;
  MlaLayer(const ModelConfig& c, int layer_index, const RopeTable* rope_table)
      : cfg(&c), rope(rope_table), il(layer_index) {}

  // ---- Mixer ----
  const char* kind_name() const override { return "latent_attention"; }
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices(bool inference_bf16) override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  MlaSaved carve_saved(Arena& a, int B, int T) const override;
  MlaGradScratch carve_grads(Arena& a, int N) const override;
  /// `rows` new tokens; `context` cached positions for the expanded form (0 otherwise).
  MlaInferScratch carve_infer(Arena& a, int rows, int context) const override;
  /// The expanded decode form re-creates k and v of every cached position: `positions` rows.
  int context_rows(const InferOptions& opt, int positions) const override;
  CacheSpec cache_spec() const override;
  std::unique_ptr<LayerCache> make_cache(int capacity, const CacheStorage& st) const override;
  /// attention_flops with d = (D + dv) / 2, the mean of the q·k and p·v widths per head, for
  /// every decode form (the expansion or absorption work is not counted).
  double flops_per_token(FlopPass pass, int context) const override;
  /// Expanded heads: Hkv = H, width D.
  SavedAttention saved_attention(const MlaSaved& s) const override;

  /// Training forward: y [N, C] for B sequences of T tokens; fills s. g.dkv serves as the
  /// transient [N, H, dn + dv] expansion buffer.
  void forward(const float* x, int B, int T, const int* positions, const MlaSaved& s,
               const MlaGradScratch& g, float* y) const override;
  /// Training backward: dx [N, C] overwritten; parameter gradients accumulate.
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const MlaSaved& s, const MlaGradScratch& g) const override;
  /// The cached forward (Mixer::forward_cached; src/layers/mla_cached.cpp): x [N, C] holds the
  /// new tokens of N >= 1 sequences; each segment's cache is a PagedKvCache whose K row is the
  /// latent row [c | k_pe] (r + dr numbers; no V row). Projections and o_proj on all N rows at
  /// once (opt.linear's order); attention per segment through its page table in
  /// opt.mla_decode's form: absorbed, every product in a fixed per-row order (bitwise
  /// independent of the batch and the chunking), or expanded. counters.attn_macs gets the
  /// multiply-adds spent on the cached tokens (expansion or absorption, scores, weighted sums).
  /// y [N, C]. Throws llm0::Error for a cache of another kind or a full one.
  void forward_cached(const float* x, int N, const int* positions,
                      std::span<const BatchSegment> segs, const MlaInferScratch& g,
                      const InferOptions& opt, float* y, WorkCounters& counters) const override;

 private:
  AttentionDims dims(int B, int Tq, int Tk, int q_offset) const;
  // q [N, H, D] (RoPE applied) from x; cq, cq_n, cq_rstd filled when q_lora_rank > 0.
  void project_q(const float* x, int N, const int* positions, float* q, float* cq, float* cq_n,
                 float* cq_rstd, const LinearKernel& lk = {}) const;
  // kv_a [N, r + dr] = x·kv_aᵀ with RoPE on its k_pe columns; c_raw [N, r] a copy of its first
  // r columns, c = kv_a_layernorm(c_raw).
  void project_latent(const float* x, int N, const int* positions, float* kv_a, float* c_raw,
                      float* c, float* c_rstd, const LinearKernel& lk = {}) const;
  // kv [S, H, dn+dv] = c·kv_bᵀ (c rows strided by ldc); k [S, H, D] = [k_nope | k_pe]; v [S, H, dv].
  void expand(const float* c, long ldc, const float* k_pe, long ldk, int S, float* kv, float* k,
              float* v) const;
  // The expanded form of rows [row0, row0 + n) (positions pos ..) over the latent rows
  // [0, pos + n) (gathered into g.lat, expanded into g.kv / g.k / g.v): returns the q·k pairs,
  // adds attn_macs.
  uint64_t attend_expanded(const KvRowSet& rows, int row0, int n, int pos,
                           const MlaInferScratch& g, WorkCounters& counters) const;
  // The fixed-order absorbed form (mla_cached.cpp), in three steps:
  // q_abs [N, H, r + dr] from q; o_lat of rows [row0, row0 + n) (positions pos ..) over the
  // latent rows [0, pos + n) as stored (returns the q·k pairs, adds attn_macs); attn [N, H, dv]
  // from o_lat. Each row's numbers are plain loops in one order, bitwise independent of N.
  void absorb_queries(int N, const MlaInferScratch& g) const;
  uint64_t attend_latent_rows(const KvRowSet& rows, int row0, int n, int pos,
                              const MlaInferScratch& g, WorkCounters& counters) const;
  void expand_values(int N, const MlaInferScratch& g) const;
};

}  // namespace llm0
