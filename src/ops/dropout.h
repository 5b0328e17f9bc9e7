// Inverted dropout (Srivastava et al., JMLR 2014; PyTorch's nn.Dropout): in training each element
// is kept with probability 1 − p and scaled by 1/(1 − p), so E[y] = x; evaluation is the identity.
// Where llm0 applies it is the Transformer's residual dropout (Vaswani et al. 2017, §5.4): on each
// sub-layer's output before it is added to the stream, and on the embeddings (model/model.cpp).
//
// The mask is a pure function of (key, element index): a counter-based hash (SplitMix64's output
// function), not a stateful generator. So backward regenerates the forward's mask instead of
// storing it, the mask is the same for any thread count, and a resumed run draws the same masks
// (the trainer derives the key from seed, step, rank and micro-batch; the model from layer and site).
#pragma once
#include <cstddef>
#include <cstdint>

namespace llm0 {

/// A dropout draw: probability p ∈ [0, 1) of zeroing an element, and the key its mask is a
/// function of. p = 0: off (the identity, bitwise).
struct Dropout {
  float p = 0;
  uint64_t key = 0;
  /// The index, in the whole batch's tensor, of a call's element 0: a thread lane's sequences
  /// (train/thread_lanes.h) start inside the batch, and draw the masks the whole batch would.
  size_t first = 0;
  bool active() const { return p > 0; }
  /// The draw of a part (layer, site, micro-batch, ...): same p and first, key mixed with `index`.
  Dropout sub(uint64_t index) const;
};

/// SplitMix64's output function (Steele, Lea & Flood, OOPSLA 2014): a bijective 64-bit mix.
uint64_t splitmix64(uint64_t z);

/// Whether element i of a call is kept by `d` (probability 1 − p, to within 2⁻³²): with
/// g = first + i, 32 bits of splitmix64(key + (⌊g/2⌋ + 1)·γ), the low half for even g, the high
/// half for odd g.
bool dropout_keeps(const Dropout& d, size_t i);

/// y[i] = keep(first + i) ? x[i] / (1 − p) : 0 for i < n (y may be x). Forward and backward are
/// this same map under the same draw (the Jacobian is diagonal). Throws llm0::Error unless
/// 0 <= p < 1.
void dropout_apply(float* y, const float* x, size_t n, const Dropout& d);

}  // namespace llm0
