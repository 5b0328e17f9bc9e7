// Feed-forward layer. SwiGLU (hidden_act "silu"; HF LlamaMLP): y = down(silu(gate(x)) ⊙ up(x)).
// GELU MLP (hidden_act "gelu*"; GPT-2 style, HF names up_proj/down_proj): y = down(gelu(up(x))).
// Layouts: x, y [N, C]; gate, up, h [N, F] with F = intermediate_size.
#pragma once
#include "config/config.h"
#include "layers/ffn_of.h"
#include "ops/weight.h"

namespace llm0 {

/// Activations of one MLP (training: saved; inference: scratch).
/// Fused layout (ld = 2F, SwiGLU training): one [N, 2F] buffer GU whose row n is
/// [gate_proj(x_n) | up_proj(x_n)], gate = GU and up = GU + F; the two projections then run as
/// one product with the stacked weight [gate_proj; up_proj] [2F, C] (adjacent in the store).
struct MlpSaved {
  float* gate = nullptr;  // [N, F] gate_proj output (SwiGLU only), rows ld apart
  float* up = nullptr;    // [N, F] up_proj output (GELU: pre-activation), rows ld apart
  float* h = nullptr;     // [N, F] down_proj input
  long ld = 0;            // row stride of gate and up: 0 = F (separate buffers), 2F = fused
};

/// Backward scratch, shared by all layers. With ld = 2F: dgate = DGU, dup = DGU + F in one
/// [N, 2F] buffer (the layout of MlpSaved's fused gate|up), so dx and the stacked weight's
/// gradient are one product each.
struct MlpGradScratch {
  float* dgate = nullptr;  // [N, F], rows ld apart
  float* dup = nullptr;    // [N, F], rows ld apart
  float* dh = nullptr;     // [N, F]
  long ld = 0;             // 0 = F; 2F = fused (as MlpSaved)
};

/// Parameter views; biases null unless mlp_bias; gate null for GELU.
struct MlpWeights {
  Weight gate_w, up_w, down_w;  // float32 or BF16 (inference)
  const float *gate_b = nullptr, *up_b = nullptr, *down_b = nullptr;
  float *dgate_w = nullptr, *dgate_b = nullptr, *dup_w = nullptr, *dup_b = nullptr;
  float *ddown_w = nullptr, *ddown_b = nullptr;
};

/// The dense feed-forward (layers/ffn.h; contract half in layers/mlp_ffn.cpp), also each expert
/// of a mixture (layers/moe.h), which binds it under its own prefix with bind_at.
struct MlpLayer final : FfnOf<MlpSaved, MlpGradScratch> {
  const ModelConfig* cfg = nullptr;
  MlpWeights w;
  int width = 0;  // F: 0 = cfg->intermediate_size (dense); an expert's moe_intermediate_size
  int F() const { return width > 0 ? width : cfg->intermediate_size; }

  MlpLayer() = default;
  MlpLayer(const ModelConfig& c, int F_width) : cfg(&c), width(F_width) {}

  /// Binds gate/up/down_proj under module prefix f ("model.layers.{i}.mlp.",
  /// "...mlp.experts.{e}."); absent names (GELU's gate, biases) bind to null.
  void bind_at(const ParamBind& b, const std::string& f);

  // ---- Ffn (dense: model.layers.{i}.mlp.{gate,up,down}_proj, bias with mlp_bias) ----
  void declare(ParamStore& p, const std::string& layer_prefix) const override;
  void bind(const ParamBind& b, const std::string& layer_prefix) override;
  std::vector<Weight*> matrices() override;
  std::vector<LinearMap> linear_maps() const override;
  ParamCounts param_counts() const override;
  bool gate_up_stacked() const override;
  MlpSaved carve_state(Arena& a, int N, bool fuse_gate_up) const override;
  MlpGradScratch carve_grads(Arena& a, int N, bool fuse_gate_up) const override;

  /// y [N, C] = mlp(x [N, C]); fills s. expert_tokens: unused (dense).
  void forward(const float* x, int N, const MlpSaved& s, float* y,
               uint64_t* expert_tokens = nullptr, const LinearKernel& k = {}) const override;
  /// dx [N, C] overwritten; parameter gradients accumulate. aux_scale: unused (dense).
  void backward(float* dx, const float* dy, const float* x, int N, const MlpSaved& s,
                const MlpGradScratch& g, float aux_scale = 0) const override;
};

}  // namespace llm0
