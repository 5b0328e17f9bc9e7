// The typed half of the mixer contract (layers/mixer.h): MixerOf<Saved, Grads, Infer> implements
// Mixer's opaque-buffer entry points once — it wraps the kind's buffer structs as LayerBuffers
// (hold) and unwraps them (held) — and declares the same entry points over the kind's own
// structs, which each kind implements: carve_saved / carve_grads / carve_infer (the buffer plan)
// and typed forward / backward / forward_cached / saved_attention. A kind thereby writes only
// typed functions, never a conversion:
//   struct GatedDeltaNetLayer final
//       : MixerOf<GatedDeltaNetSaved, GatedDeltaNetGradScratch, GatedDeltaNetSaved> { ... };
// Saved: its training activations (one per layer); Grads: its backward scratch (layers take
// turns); Infer: its inference scratch. Each is a plain struct of views into the plan's arena.
// Buffers of another kind reaching these entry points throw llm0::Error (held).
#pragma once
#include <memory>
#include <span>

#include "layers/layer_buffers.h"
#include "layers/mixer.h"

namespace llm0 {

template <class Saved, class Grads, class Infer>
class MixerOf : public Mixer {
 public:
  // ---- the kind's typed contract ----
  /// Carves its saved activations for B sequences of T tokens from `a` (Mixer::plan_saved).
  virtual Saved carve_saved(Arena& a, int B, int T) const = 0;
  /// Carves its backward scratch for N rows (Mixer::plan_grads).
  virtual Grads carve_grads(Arena& a, int N) const = 0;
  /// Carves its inference scratch for `rows` new tokens and `context` cached positions
  /// (Mixer::plan_infer).
  virtual Infer carve_infer(Arena& a, int rows, int context) const = 0;
  /// Mixer::forward over its own structs: fills `saved`; `grads` may serve as transient room.
  virtual void forward(const float* x, int B, int T, const int* positions, const Saved& saved,
                       const Grads& grads, float* y) const = 0;
  /// Mixer::backward over its own structs.
  virtual void backward(float* dx, const float* dy, const float* x, int B, int T,
                        const int* positions, const Saved& saved, const Grads& grads) const = 0;
  /// Mixer::forward_cached over its own scratch.
  virtual void forward_cached(const float* x, int N, const int* positions,
                              std::span<const BatchSegment> segs, const Infer& scratch,
                              const InferOptions& opt, float* y, WorkCounters& counters) const = 0;
  /// Mixer::saved_attention of its saved activations (none unless the kind has attention weights).
  virtual SavedAttention saved_attention(const Saved& /*saved*/) const { return {}; }

  // ---- Mixer's opaque entry points, once for every kind ----
  std::unique_ptr<LayerBuffers> plan_saved(Arena& a, int B, int T) const final {
    return hold(carve_saved(a, B, T));
  }
  std::unique_ptr<LayerBuffers> plan_grads(Arena& a, int N) const final {
    return hold(carve_grads(a, N));
  }
  std::unique_ptr<LayerBuffers> plan_infer(Arena& a, int rows, int context) const final {
    return hold(carve_infer(a, rows, context));
  }
  void forward(const float* x, int B, int T, const int* positions, const LayerBuffers& saved,
               const LayerBuffers& grads, float* y) const final {
    forward(x, B, T, positions, held<Saved>(saved), held<Grads>(grads), y);
  }
  void backward(float* dx, const float* dy, const float* x, int B, int T, const int* positions,
                const LayerBuffers& saved, const LayerBuffers& grads) const final {
    backward(dx, dy, x, B, T, positions, held<Saved>(saved), held<Grads>(grads));
  }
  void forward_cached(const float* x, int N, const int* positions,
                      std::span<const BatchSegment> segs, const LayerBuffers& scratch,
                      const InferOptions& opt, float* y, WorkCounters& counters) const final {
    forward_cached(x, N, positions, segs, held<Infer>(scratch), opt, y, counters);
  }
  SavedAttention saved_attention(const LayerBuffers& saved) const final {
    return saved_attention(held<Saved>(saved));
  }
};

}  // namespace llm0
