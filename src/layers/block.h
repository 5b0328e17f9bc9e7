// Pre-norm decoder block (GPT-2 / Llama): h = x + mixer(norm1(x)); out = h + ffn(norm2(h)).
// HF names: input_layernorm, self_attn | linear_attn, post_attention_layernorm, mlp. The token
// mixer (layers/mixer.h: attention, MLA, Gated DeltaNet) and the feed-forward (layers/ffn.h:
// dense MLP or mixture of experts) are the layer's, made by layers/mixer_factory.h; the block
// calls them through their contracts and never asks which kind they are.
// Layouts: x, out [N, C] with N = B·T rows.
#pragma once
#include <memory>
#include <span>

#include "layers/ffn.h"
#include "layers/mixer.h"
#include "layers/norm.h"
#include "ops/dropout.h"

namespace llm0 {

/// Training buffers of one block (views into the activation plan).
struct BlockSaved {
  float* x_in = nullptr;                           // [N, C] block input (residual stream)
  float* ln1 = nullptr;                            // [N, C] norm1(x_in)
  float *ln1_mean = nullptr, *ln1_rstd = nullptr;  // [N]
  std::unique_ptr<LayerBuffers> mixer;             // the mixer's saved activations
  float* x_mid = nullptr;                          // [N, C] x_in + mixer
  float* ln2 = nullptr;                            // [N, C] norm2(x_mid)
  float *ln2_mean = nullptr, *ln2_rstd = nullptr;  // [N]
  std::unique_ptr<LayerBuffers> ffn;               // the feed-forward's saved state
  // Backward scratch of this block's mixer and feed-forward: the same memory as every other
  // block's (blocks run one at a time).
  std::unique_ptr<LayerBuffers> mixer_grads, ffn_grads;
};

/// Scratch shared by all blocks in backward (and `branch` in forward).
struct BlockScratch {
  float* branch = nullptr;  // [N, C] mixer / ffn output before the residual add
  float* dln = nullptr;     // [N, C]
  float* dnorm = nullptr;   // [N, C]
  float aux_scale = 0;      // weight of the MoE load-balancing loss in backward (Ffn::backward)
  Dropout dropout;          // the current layer's residual dropout draw (p = 0: off); its sites:
                            // sub(0) on the mixer's output, sub(1) on the feed-forward's
};

/// Inference scratch of one block for Tn tokens (sized by the model).
struct BlockInferScratch {
  float *ln = nullptr, *branch = nullptr;  // [Tn, C], shared by all blocks
  std::unique_ptr<LayerBuffers> mixer, ffn;  // this block's (memory shared with the other blocks')
};

struct Block {
  NormLayer norm1, norm2;
  std::unique_ptr<Mixer> mixer;
  std::unique_ptr<Ffn> ffn;

  /// out [N, C] from s.x_in (which the caller filled); saves activations in s. With g.dropout
  /// active each branch is dropped out (ops/dropout.h) before its residual add.
  void forward(int B, int T, const int* positions, BlockSaved& s, const BlockScratch& g,
               float* out) const;
  /// dstream [N, C]: on entry ∂L/∂out, on exit ∂L/∂x_in. Parameter gradients accumulate. g.dropout
  /// must be the forward's draw (its masks are regenerated, not stored).
  void backward(float* dstream, int B, int T, const int* positions, const BlockSaved& s,
                const BlockScratch& g) const;
  /// Inference, the one cached forward: x [N, C], the new tokens of the sequences in `segs`
  /// (N >= 1 sequences), updated in place: x += mixer(norm1(x)) (Mixer::forward_cached), then
  /// x += ffn(norm2(x)) on all rows, the linear maps in opt.linear's kernel order.
  void forward_cached(float* x, int N, const int* positions, std::span<const BatchSegment> segs,
                      const BlockInferScratch& g, const InferOptions& opt,
                      WorkCounters& counters) const;
};

}  // namespace llm0
