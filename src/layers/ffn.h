// The feed-forward contract: what the second half of every block offers — the dense MLP
// (layers/mlp.h, SwiGLU or GELU) or a mixture of experts (layers/moe.h). A kind is one class
// deriving from FfnOf<State, Grads> (layers/ffn_of.h), which converts the opaque LayerBuffers to
// its typed structs once; layers/mixer_factory.cpp maps a layer's FfnKind to the class; Block
// holds one Ffn and never asks which. What only a mixture of experts has is one named capability,
// routing() (null when dense). The FFN is per token row, so one entry serves training,
// single-sequence inference and the ragged batch alike.
// Layouts: x, y [N, C]. Gradient rule: dx overwritten, parameter gradients accumulate (+=).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/arena.h"
#include "layers/layer_buffers.h"
#include "ops/linear_pack.h"
#include "ops/matmul.h"
#include "ops/weight.h"

namespace llm0 {

/// The routing of a mixture-of-experts FFN (Ffn::routing()): what the model, the trainer and the
/// lessons read of it. `state`: the LayerBuffers its Ffn::plan_saved made.
class Routing {
 public:
  /// Routed experts E (> 0).
  virtual int num_experts() const = 0;
  /// Switch-Transformer balance E · Σ_e f_e · P_e of the forward over N rows that filled `state`.
  virtual double balance(const LayerBuffers& state, int N) const = 0;
  /// Rows routed to each expert [E] by that forward.
  virtual const float* expert_load(const LayerBuffers& state) const = 0;
  /// The router's e_score_correction_bias [E] (a view of the parameter; null: none, DeepSeek-V3
  /// noaux_tc only).
  virtual float* router_bias() const = 0;

 protected:
  ~Routing() = default;
};

class Ffn {
 public:
  virtual ~Ffn() = default;

  // ---- parameter table ----
  /// Declares its parameters under `layer_prefix` ("model.layers.{i}."), HF names ("mlp.…").
  virtual void declare(ParamStore& p, const std::string& layer_prefix) const = 0;
  /// Binds value and gradient views to the store's tensors of the same names.
  virtual void bind(const ParamBind& b, const std::string& layer_prefix) = 0;
  /// Matrices of its linear maps (BF16 inference weights and mixed-precision products).
  virtual std::vector<Weight*> matrices() = 0;
  /// Every linear map its inference forward computes (matrix as bound now, I, O), for the
  /// model's packed panels (as Mixer::linear_maps).
  virtual std::vector<LinearMap> linear_maps() const = 0;
  /// Its parameter counts from the config.
  virtual ParamCounts param_counts() const = 0;
  /// Whether its SwiGLU gate_proj and up_proj may be multiplied as one stacked [2F, C] matrix
  /// (float32, adjacent in the store, no biases; see model/plan.h). True when it has none.
  virtual bool gate_up_stacked() const { return true; }

  // ---- buffer plan ----
  /// Forward state for N rows (training: saved per layer; inference: scratch). With
  /// `fuse_gate_up` a dense SwiGLU keeps gate|up as [N, 2F] rows (layers/mlp.h).
  virtual std::unique_ptr<LayerBuffers> plan_saved(Arena& a, int N, bool fuse_gate_up) const = 0;
  /// Backward scratch for N rows (layers take turns: the model overlays every layer's).
  virtual std::unique_ptr<LayerBuffers> plan_grads(Arena& a, int N, bool fuse_gate_up) const = 0;

  // ---- compute ----
  /// y [N, C] = ffn(x [N, C]); fills `state`. expert_tokens [E] (optional; routing()) += rows
  /// routed to each expert. `k`: the linear maps' kernel order (ops/matmul.h; inference contexts).
  virtual void forward(const float* x, int N, const LayerBuffers& state, float* y,
                       uint64_t* expert_tokens = nullptr, const LinearKernel& k = {}) const = 0;
  /// Backward of the forward that filled `state`. aux_scale: weight of the load-balancing loss
  /// in this backward (0: none; MoE only, layers/moe.h MoeLayer::backward).
  virtual void backward(float* dx, const float* dy, const float* x, int N,
                        const LayerBuffers& state, const LayerBuffers& grads,
                        float aux_scale) const = 0;

  // ---- optional ----
  /// Its routing (a mixture of experts), null when dense.
  virtual const Routing* routing() const { return nullptr; }
};

}  // namespace llm0
