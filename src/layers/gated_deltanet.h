// Gated DeltaNet layer in the Qwen3-Next layout (Yang, Kautz, Hatamizadeh, arXiv:2412.06464; HF
// transformers/models/qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet). Symbols: C
// hidden, nk / nv key / value heads (r = nv / nk), dk / dv head dims, K conv taps,
// Cc = 2·nk·dk + nv·dv conv channels, P = 2·nk·dk + 2·nv·dv. Tensors (model.layers.{i}.linear_attn.):
//   in_proj_qkvz [P, C]   rows grouped by key head g: [q_g (dk) | k_g (dk) | v of heads g·r… (r·dv)
//                         | z of the same heads (r·dv)]
//   in_proj_ba   [2·nv, C] grouped the same way: [b (r) | a (r)] per key head
//   conv1d.weight [Cc, 1, K] depthwise causal conv over [all q | all k | all v], then SiLU
//   dt_bias, A_log [nv];  norm.weight [dv];  out_proj [C, nv·dv]
// Forward: q ← l2norm(q)·dk^−1/2, k ← l2norm(k) (l2norm(x) = x / sqrt(Σx² + 1e-6)), β = σ(b),
// g = −exp(A_log)·softplus(a + dt_bias); o = gated delta rule (ops/gated_delta.h); per value head
// o ← RMSNorm(o; norm.weight, rms_norm_eps) · silu(z); y = out_proj(o).
// Layouts: x, y [N, C], N = B·T rows in (b, t) order. Gradient rule: dx overwritten, parameter
// gradients accumulate.
#pragma once
#include <cstddef>
#include <span>

#include "cache/layer_cache.h"
#include "config/gated_deltanet_config.h"
#include "layers/mixer_of.h"
#include "ops/weight.h"

namespace llm0 {

class RecurrentState;

/// Training activations of one layer (also the inference scratch, with B = 1, T = Tn). Views into
/// one buffer of floats(cfg, B, T) floats carved by bind().
struct GatedDeltaNetSaved {
  float* qkvz = nullptr;      // [N, P]  in_proj_qkvz output (transient)
  float* ab = nullptr;        // [N, 2·nv] in_proj_ba output, grouped [b | a] per key head
  float* mixed = nullptr;     // [N, Cc] conv input [q | k | v] (raw, head-major)
  float* z = nullptr;         // [N, nv, dv]
  float* conv = nullptr;      // [N, Cc] conv output before SiLU
  float* act = nullptr;       // [N, Cc] after SiLU
  float *q = nullptr, *k = nullptr;            // [N, nk, dk] after l2norm (q also scaled)
  float *q_rnorm = nullptr, *k_rnorm = nullptr;  // [N, nk] 1 / sqrt(Σx² + 1e-6)
  float* v = nullptr;         // [N, nv, dv]
  float *beta = nullptr, *g = nullptr;  // [N, nv]
  float* o = nullptr;         // [N, nv, dv] delta-rule output
  float* o_rstd = nullptr;    // [N, nv]
  float* o_norm = nullptr;    // [N, nv, dv] RMSNorm(o)·w (before the gate)
  float* gated = nullptr;     // [N, nv, dv] out_proj input
  float* states = nullptr;    // [B, nv, ⌈T/L⌉, dk, dv] chunk-start states
  float* final_state = nullptr;  // [B, nv, dk, dv] state after the sequence (training: unused)

  static size_t floats(const GatedDeltaNetConfig& c, int B, int T);
  void bind(float* base, const GatedDeltaNetConfig& c, int B, int T);
};

/// Backward scratch (views into floats(cfg, N) floats carved by bind()).
struct GatedDeltaNetGradScratch {
  float *dqkvz = nullptr;                // [N, P]
  float *dab = nullptr;                  // [N, 2·nv]
  float *dmixed = nullptr, *dact = nullptr;  // [N, Cc]
  float *dq = nullptr, *dk = nullptr;    // [N, nk, dk]
  float *dv = nullptr, *do_ = nullptr, *dgated = nullptr, *dnorm = nullptr;  // [N, nv, dv]
  float *dg = nullptr, *dbeta = nullptr; // [N, nv]

  static size_t floats(const GatedDeltaNetConfig& c, int N);
  void bind(float* base, const GatedDeltaNetConfig& c, int N);
};

/// Parameter views (values and gradients; gradients only for training).
struct GatedDeltaNetWeights {
  Weight in_proj_qkvz, in_proj_ba, out_proj;  // float32 (BF16 products in mixed precision)
  const float *conv1d = nullptr, *dt_bias = nullptr, *A_log = nullptr, *norm = nullptr;
  float *din_proj_qkvz = nullptr, *din_proj_ba = nullptr, *dconv1d = nullptr;
  float *ddt_bias = nullptr, *dA_log = nullptr, *dnorm = nullptr, *dout_proj = nullptr;
};

/// The linear-attention mixer (layers/mixer.h). Its contract half (parameter table, buffer plan,
/// cache spec, FLOPs) is in layers/gated_deltanet_mixer.cpp. Its inference scratch is the
/// training activations of one sequence (GatedDeltaNetSaved with B = 1).
struct GatedDeltaNetLayer final
    : MixerOf<GatedDeltaNetSaved, GatedDeltaNetGradScratch, GatedDeltaNetSaved> {
  static constexpr float kL2Eps = 1e-6f;  // l2norm of q and k (HF l2norm default)
  GatedDeltaNetConfig cfg;
  int C = 0;              // hidden_size
  float eps = 1e-6f;      // rms_norm_eps of the gated norm
  GatedDeltaNetWeights w;
  int il = 0;             // layer index (error messages)

  GatedDeltaNetLayer() = default;
  GatedDeltaNetLayer(const ModelConfig& c, int layer_index)
      : cfg(c.linear), C(c.hidden_size), eps((float)c.rms_norm_eps), il(layer_index) {}

  // ---- Mixer ----
  const char* kind_name() const override { return "linear_attention"; }
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices(bool inference_bf16) override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  GatedDeltaNetSaved carve_saved(Arena& a, int B, int T) const override;
  GatedDeltaNetGradScratch carve_grads(Arena& a, int N) const override;
  GatedDeltaNetSaved carve_infer(Arena& a, int rows, int context) const override;
  CacheSpec cache_spec() const override;
  std::unique_ptr<LayerCache> make_cache(int capacity, const CacheStorage& st) const override;
  /// The delta rule's forward, whatever the context: per value head 4·dk·dv multiply-adds per
  /// token (decay S, Sᵀk, S += k uᵀ, Sᵀq; arXiv:2412.06464's recurrent form), 8·nv·dk·dv FLOPs;
  /// a training step three times that (PaLM's backward = 2 forwards), a decoded token once.
  double flops_per_token(FlopPass pass, int context) const override;
  void update_config(const ModelConfig& c) override { cfg.chunk_size = c.linear.chunk_size; }

  /// Training forward: y [N, C] for B sequences of T tokens from zero state; fills s. Positions
  /// and g are unused (the conv and the recurrence carry the order).
  void forward(const float* x, int B, int T, const int* positions, const GatedDeltaNetSaved& s,
               const GatedDeltaNetGradScratch& g, float* y) const override;
  /// Training backward: dx [N, C] overwritten; parameter gradients accumulate.
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const GatedDeltaNetSaved& s, const GatedDeltaNetGradScratch& g) const override;
  /// The cached forward (Mixer::forward_cached): x [N, C] holds the new tokens of N >= 1
  /// sequences, each continuing its RecurrentState. in_proj and out_proj run on all N rows at
  /// once (opt.linear's order); the convolution and the delta rule per segment. The rule's form
  /// is math, not a second path: with opt.linear.fixed_order (and for one token) the recurrent
  /// form, token by token, so a row's output does not depend on how the sequence was chunked;
  /// otherwise the chunked form for a segment of several tokens (sgemm-fast prefill, rounding
  /// that depends on where chunks start). With a bf16 window the raw conv inputs are rounded to
  /// bf16 before the convolution, as stored. s: scratch bound for (1, ≥ N). y [N, C]. Positions
  /// and counters are unused (the state is fixed: no attention work to count). Throws
  /// llm0::Error for a segment cache of another kind or out of order.
  void forward_cached(const float* x, int N, const int* positions,
                      std::span<const BatchSegment> segs, const GatedDeltaNetSaved& s,
                      const InferOptions& opt, float* y, WorkCounters& counters) const override;

 private:
  // x → qkvz, ab → mixed, z (regrouped); conv over mixed with `history` → conv, act.
  void project(const float* x, int B, int T, const float* history,
               const GatedDeltaNetSaved& s) const;
  // x [N, C] → qkvz, ab → mixed, z (regrouped), all rows.
  void project_rows(const float* x, int N, const GatedDeltaNetSaved& s,
                    const LinearKernel& lk = {}) const;
  // conv, act of rows [row0, row0 + B·T) from mixed, with `history` [B, K−1, Cc] (null: zeros).
  void convolve(long row0, int B, int T, const float* history, const GatedDeltaNetSaved& s) const;
  // A bf16 window holds raw conv inputs rounded to bf16: mixed [Tn, Cc] rounded so, before the
  // convolution reads them, so a token sees the same inputs whether they came from this call or
  // from the window (as a bf16 KV cache's rows are rounded before attention reads them).
  void round_as_stored(const RecurrentState& rs, float* mixed, int Tn) const;
  // The state's conv window after Tn more raw inputs mixed [Tn, Cc] (stored in the cache dtype).
  void advance_window(RecurrentState& rs, const float* mixed, int Tn) const;
  // act, ab → q, k, v, β, g.
  void prepare_inputs(int N, const GatedDeltaNetSaved& s) const;
  // o, z → o_norm, gated → y.
  void output(int N, const GatedDeltaNetSaved& s, float* y, const LinearKernel& lk = {}) const;
};

}  // namespace llm0
