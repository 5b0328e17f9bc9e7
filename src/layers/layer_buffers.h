// What the layer contracts (layers/mixer.h, layers/ffn.h) share: the buffers a layer carves for
// itself from an activation plan (opaque to the block and the model), the binding of parameter
// views by checkpoint name, the work counters and the parameter counts of one layer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/params.h"

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

/// Buffers one layer carved for itself from an Arena (its saved activations, backward scratch or
/// inference scratch: views, the arena owns the memory). The block and the model hold them
/// without knowing their layout; the layer that planned them reads them back with held<T>.
class LayerBuffers {
 public:
  virtual ~LayerBuffers() = default;
  const void* tag() const { return tag_; }

 protected:
  explicit LayerBuffers(const void* tag) : tag_(tag) {}

 private:
  const void* tag_;  // identifies T of Held<T>
};

/// A layer's buffer struct T (e.g. AttentionSaved) as LayerBuffers.
template <class T>
class Held final : public LayerBuffers {
 public:
  explicit Held(const T& v) : LayerBuffers(tag_of()), value(v) {}
  static const void* tag_of() {
    static const char tag = 0;
    return &tag;
  }
  T value;
};

/// Wraps a buffer struct for the block to hold.
template <class T>
std::unique_ptr<LayerBuffers> hold(const T& v) {
  return std::make_unique<Held<T>>(v);
}

/// The buffer struct a layer planned. Throws llm0::Error if `b` holds another struct (buffers of
/// another layer kind: a bug in the caller, reported rather than read).
template <class T>
const T& held(const LayerBuffers& b) {
  LLM0_CHECK(b.tag() == Held<T>::tag_of(), "layer buffers of another layer kind");
  return static_cast<const Held<T>&>(b).value;
}

/// Value and gradient views of parameters by checkpoint name, null when the store lacks the name
/// (optional biases and norms, or another variant's tensors).
struct ParamBind {
  ParamStore& p;
  const float* value(const std::string& n) const { return p.has(n) ? p.value(n) : nullptr; }
  float* grad(const std::string& n) const { return p.has(n) ? p.gradient(n) : nullptr; }
  float* mutable_value(const std::string& n) const { return p.has(n) ? p.value(n) : nullptr; }
  /// Binds one row of a layer's table: the value view (const float* or Weight) and the gradient
  /// view of `name`.
  template <class V>
  void operator()(const std::string& name, V& value_view, float*& grad_view) const {
    value_view = value(name), grad_view = grad(name);
  }
};

/// Declares `name`.weight [out, in] (PyTorch's Linear layout) and, with `bias`, `name`.bias [out].
void declare_linear(ParamStore& p, const std::string& name, int out, int in, bool bias);

/// Parameters of one layer (numbers): all of them, those one token uses (MoE: the chosen experts),
/// those one token multiplies (matrices; 2 FLOPs each per token), and the routed experts'.
struct ParamCounts {
  double total = 0, active = 0, matmul_active = 0, experts = 0;
};

}  // namespace llm0
