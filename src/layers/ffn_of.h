// The typed half of the feed-forward contract (layers/ffn.h), as MixerOf is for the mixers
// (layers/mixer_of.h): FfnOf<State, Grads> implements Ffn's opaque-buffer entry points once
// (hold/held) and declares them over the kind's own structs — carve_state / carve_grads and typed
// forward / backward — which each kind implements. State: its forward state (saved activations in
// training, scratch at inference); Grads: its backward scratch. Buffers of another kind reaching
// these entry points throw llm0::Error (held).
#pragma once
#include <cstdint>
#include <memory>

#include "layers/ffn.h"
#include "layers/layer_buffers.h"

namespace llm0 {

template <class State, class Grads>
class FfnOf : public Ffn {
 public:
  // ---- the kind's typed contract ----
  /// Carves its forward state for N rows from `a` (Ffn::plan_saved).
  virtual State carve_state(Arena& a, int N, bool fuse_gate_up) const = 0;
  /// Carves its backward scratch for N rows (Ffn::plan_grads).
  virtual Grads carve_grads(Arena& a, int N, bool fuse_gate_up) const = 0;
  /// Ffn::forward over its own state.
  virtual void forward(const float* x, int N, const State& state, float* y,
                       uint64_t* expert_tokens, const LinearKernel& k) const = 0;
  /// Ffn::backward over its own structs.
  virtual void backward(float* dx, const float* dy, const float* x, int N, const State& state,
                        const Grads& grads, float aux_scale) const = 0;

  // ---- Ffn's opaque entry points, once for every kind ----
  std::unique_ptr<LayerBuffers> plan_saved(Arena& a, int N, bool fuse_gate_up) const final {
    return hold(carve_state(a, N, fuse_gate_up));
  }
  std::unique_ptr<LayerBuffers> plan_grads(Arena& a, int N, bool fuse_gate_up) const final {
    return hold(carve_grads(a, N, fuse_gate_up));
  }
  void forward(const float* x, int N, const LayerBuffers& state, float* y,
               uint64_t* expert_tokens = nullptr, const LinearKernel& k = {}) const final {
    forward(x, N, held<State>(state), y, expert_tokens, k);
  }
  void backward(float* dx, const float* dy, const float* x, int N, const LayerBuffers& state,
                const LayerBuffers& grads, float aux_scale) const final {
    backward(dx, dy, x, N, held<State>(state), held<Grads>(grads), aux_scale);
  }
};

}  // namespace llm0
