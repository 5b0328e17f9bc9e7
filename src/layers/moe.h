// Mixture-of-experts feed-forward (Shazeer et al., arXiv:1701.06538; Switch, arXiv:2101.03961;
// DeepSeekMoE, arXiv:2401.06066): y = Σ_{k chosen} w_k · expert_k(x) + [σ(x·w_sg)] · shared(x).
// HF Qwen2MoeSparseMoeBlock / Qwen3MoeSparseMoeBlock / DeepseekV2MoE / DeepseekV3MoE; names:
//   mlp.gate.weight [E, C] (router), mlp.gate.e_score_correction_bias [E] (noaux_tc),
//   mlp.experts.{e}.{gate,up,down}_proj.weight ([Fe, C], [Fe, C], [C, Fe]),
//   mlp.shared_expert.* + mlp.shared_expert_gate.weight [1, C] (Qwen), mlp.shared_experts.* (DeepSeek).
// Compute grouped by expert: the (token, slot) rows routed to expert e are gathered into one
// block [n_e, C], run through the expert as one GEMM each for gate/up and down, and their outputs
// scattered back weighted. Decode (one token) thereby reads only the K chosen experts' weights.
// Backward (docs/derivations/moe.md): experts and shared expert by MlpLayer::backward; the router
// through the mixing weights of the chosen experts only (∂L/∂w_k = <dy, expert_k(x)>); the
// correction bias receives none. Gradient rule: dx overwritten, parameter gradients +=.
// Layouts: x, y [N, C]; router [N, E]; routed rows [N·K, ...] grouped by expert.
#pragma once
#include <cstdint>
#include <vector>

#include "layers/mlp.h"

namespace llm0 {

/// Forward state of one MoE layer (training: saved for backward; inference: scratch).
struct MoeSaved {
  float* logits = nullptr;    // [N, E] x · gateᵀ
  float* scores = nullptr;    // [N, E] softmax / sigmoid of the logits
  int* ids = nullptr;         // [N, K] chosen experts, best first
  float* weights = nullptr;   // [N, K] mixing weights
  int* row_of = nullptr;      // [N·K] grouped row of (token n, slot k) at n·K + k
  int* token_of = nullptr;    // [N·K] token of each grouped row
  int* offsets = nullptr;     // [E + 1] expert e's rows are [offsets[e], offsets[e+1])
  float* xg = nullptr;        // [N·K, C] gathered inputs
  MlpSaved expert;            // [N·K, Fe] gate, up, h of every routed row
  float* out = nullptr;       // [N·K, C] expert outputs before weighting
  MlpSaved shared;            // [N, Fs] shared expert (Fs > 0)
  float* shared_out = nullptr;   // [N, C]
  float* shared_gate = nullptr;  // [N] σ(x · shared_expert_gate) (gated shared expert)
  float* work = nullptr;      // [E + n_group] router scratch
  float* load = nullptr;      // [E] rows routed to each expert by the last forward
  float* mean_p = nullptr;    // [E] P_e: the router's mean probability per expert
};

/// Backward scratch shared by all MoE layers.
struct MoeGradScratch {
  float* dxg = nullptr;      // [N·K, C]
  float* dout = nullptr;     // [N·K, C]
  MlpGradScratch expert;     // [N·K, Fe]
  MlpGradScratch shared;     // [N, Fs]
  float* dshared = nullptr;  // [N, C]
  float* dpart = nullptr;    // [N, C]
  float* dweights = nullptr; // [N, K]
  float* dscores = nullptr;  // [N, E]
  float* dlogits = nullptr;  // [N, E]
};

/// Buffers sizes of one MoE layer for N tokens (floats), for the activation plans.
struct MoeSizes {
  size_t N, E, K, C, Fe, Fs, G;
  MoeSizes(const ModelConfig& c, size_t N);
};

/// Carves the forward state (saved or inference scratch) from `take` (an Arena-like allocator).
template <class Take>
void carve_moe(Take&& take, const MoeSizes& z, MoeSaved& s) {
  const size_t NK = z.N * z.K;
  s.logits = take(z.N * z.E), s.scores = take(z.N * z.E), s.weights = take(NK);
  s.ids = reinterpret_cast<int*>(take(NK)), s.row_of = reinterpret_cast<int*>(take(NK));
  s.token_of = reinterpret_cast<int*>(take(NK)), s.offsets = reinterpret_cast<int*>(take(z.E + 1));
  s.xg = take(NK * z.C), s.out = take(NK * z.C);
  s.expert = {take(NK * z.Fe), take(NK * z.Fe), take(NK * z.Fe)};
  s.shared = z.Fs ? MlpSaved{take(z.N * z.Fs), take(z.N * z.Fs), take(z.N * z.Fs)} : MlpSaved{};
  s.shared_out = z.Fs ? take(z.N * z.C) : nullptr, s.shared_gate = z.Fs ? take(z.N) : nullptr;
  s.work = take(z.E + z.G), s.load = take(z.E), s.mean_p = take(z.E);
}

/// Carves the backward scratch.
template <class Take>
void carve_moe_grads(Take&& take, const MoeSizes& z, MoeGradScratch& g) {
  const size_t NK = z.N * z.K;
  g.dxg = take(NK * z.C), g.dout = take(NK * z.C);
  g.expert = {take(NK * z.Fe), take(NK * z.Fe), take(NK * z.Fe)};
  g.shared = z.Fs ? MlpGradScratch{take(z.N * z.Fs), take(z.N * z.Fs), take(z.N * z.Fs)} : MlpGradScratch{};
  g.dshared = take(z.N * z.C), g.dpart = take(z.N * z.C), g.dweights = take(NK);
  g.dscores = take(z.N * z.E), g.dlogits = take(z.N * z.E);
}

/// The mixture-of-experts feed-forward (layers/ffn.h; contract half in layers/moe_ffn.cpp) and
/// its routing (Ffn::routing()).
struct MoeLayer final : FfnOf<MoeSaved, MoeGradScratch>, Routing {
  const ModelConfig* cfg = nullptr;
  const float* gate_w = nullptr;  // mlp.gate.weight [E, C]
  float* dgate_w = nullptr;
  float* bias = nullptr;          // mlp.gate.e_score_correction_bias [E] (noaux_tc), else null
  std::vector<MlpLayer> experts;  // [E], width moe_intermediate_size
  MlpLayer shared;                // width Fs (unused when Fs = 0)
  const float* shared_gate_w = nullptr;  // mlp.shared_expert_gate.weight [1, C] (gated), else null
  float* dshared_gate_w = nullptr;

  MoeLayer() = default;
  explicit MoeLayer(const ModelConfig& c) : cfg(&c) {}

  // ---- Ffn ----
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices() override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  MoeSaved carve_state(Arena& a, int N, bool fuse_gate_up) const override;
  MoeGradScratch carve_grads(Arena& a, int N, bool fuse_gate_up) const override;
  const Routing* routing() const override { return this; }

  // ---- Routing ----
  int num_experts() const override { return cfg->moe.num_experts; }
  double balance(const LayerBuffers& state, int N) const override;
  const float* expert_load(const LayerBuffers& state) const override;
  float* router_bias() const override { return bias; }

  /// y [N, C] = moe(x [N, C]); fills s (routing, grouped rows, load and P_e).
  /// expert_tokens [E] (optional): += rows routed to each expert.
  void forward(const float* x, int N, const MoeSaved& s, float* y,
               uint64_t* expert_tokens = nullptr, const LinearKernel& k = {}) const override;
  /// dx [N, C] overwritten; parameter gradients accumulate; with aux_scale ≠ 0 adds the gradient
  /// of aux_scale · E · Σ_e f_e P_e (f_e = load_e / N, constant) to the router. aux_scale: the
  /// weight of the balancing loss in this backward, ∂L/∂(E·Σ_e f_e P_e) (0: none); the model sets
  /// it to loss_scale · tokens · router_aux_loss_coef when the aux loss balances the load.
  void backward(float* dx, const float* dy, const float* x, int N, const MoeSaved& s,
                const MoeGradScratch& g, float aux_scale = 0) const override;
  /// Switch-Transformer balance of the last forward: E · Σ_e f_e · P_e (f_e = load_e / N counts
  /// every slot, so Σ_e f_e = K; uniform routing gives K).
  double balance(const MoeSaved& s, int N) const;
};

}  // namespace llm0
