// Pre-norm decoder block (GPT-2 / Llama): h = x + attn(norm1(x)); out = h + mlp(norm2(h)).
// HF names: input_layernorm, self_attn, post_attention_layernorm, mlp. The sequence mixer is the
// layer's kind (LayerConfig): attention (full or sliding), multi-head latent attention (MLA) or
// Gated DeltaNet (linear attention); the feed-forward is the layer's FfnKind: dense MLP or
// mixture of experts (layers/moe.h).
// Layouts: x, out [N, C] with N = B·T rows.
#pragma once
#include "layers/attention.h"
#include "layers/gated_deltanet.h"
#include "layers/mla.h"
#include "layers/mlp.h"
#include "layers/moe.h"
#include "layers/norm.h"

namespace llm0 {

/// Training activations of one block (views into the activation plan).
struct BlockSaved {
  float* x_in = nullptr;                           // [N, C] block input (residual stream)
  float* ln1 = nullptr;                            // [N, C] norm1(x_in)
  float *ln1_mean = nullptr, *ln1_rstd = nullptr;  // [N]
  AttentionSaved attn;                             // attention layers
  MlaSaved mla;                                    // latent-attention layers
  GatedDeltaNetSaved gdn;                          // linear-attention layers
  float* x_mid = nullptr;                          // [N, C] x_in + attn
  float* ln2 = nullptr;                            // [N, C] norm2(x_mid)
  float *ln2_mean = nullptr, *ln2_rstd = nullptr;  // [N]
  MlpSaved mlp;                                    // dense MLP layers
  MoeSaved moe;                                    // mixture-of-experts layers
};

/// Scratch shared by all blocks in backward (and `branch` in forward).
struct BlockScratch {
  float* branch = nullptr;  // [N, C] attn / mlp output before the residual add
  float* dln = nullptr;     // [N, C]
  float* dnorm = nullptr;   // [N, C]
  AttentionGradScratch attn;
  MlaGradScratch mla;
  GatedDeltaNetGradScratch gdn;
  MlpGradScratch mlp;
  MoeGradScratch moe;
};

/// Inference scratch for Tn tokens (sized by the model).
struct BlockInferScratch {
  float *ln = nullptr, *branch = nullptr;  // [Tn, C]
  AttentionInferScratch attn;
  MlaInferScratch mla;
  GatedDeltaNetSaved gdn;                  // bound for (1, Tn)
  MlpSaved mlp;                            // [Tn, F] each
  MoeSaved moe;                            // mixture-of-experts layers ([Tn, ...])
};

struct Block {
  LayerKind kind = LayerKind::FullAttention;  // which of attn / mla mixes the sequence
  NormLayer norm1, norm2;
  AttentionLayer attn;
  MlaLayer mla;
  FfnKind ffn = FfnKind::Mlp;                 // which of mlp / moe is the feed-forward
  GatedDeltaNetLayer gdn;
  MlpLayer mlp;
  MoeLayer moe;

  /// out [N, C] from s.x_in (which the caller filled); saves activations in s.
  void forward(int B, int T, const int* positions, BlockSaved& s, const BlockScratch& g,
               float* out) const;
  /// dstream [N, C]: on entry ∂L/∂out, on exit ∂L/∂x_in. Parameter gradients accumulate.
  void backward(float* dstream, int B, int T, const int* positions, const BlockSaved& s,
                const BlockScratch& g) const;
  /// Inference: x [Tn, C] updated in place (x += attn(...), then x += mlp(...)).
  /// `mla_form` chooses MLA's decode form (ignored by attention layers).
  void forward_cached(float* x, int Tn, int pos, const int* positions, LayerCache& cache,
                      const BlockInferScratch& g, MlaDecode mla_form,
                      WorkCounters& counters) const;
  /// Ragged batch inference (the serving engine's step): x [N, C], the new tokens of the
  /// sequences in `segs`, updated in place; the mixer's batch form (AttentionLayer::forward_batch
  /// for full and sliding layers, MlaLayer::forward_batch, GatedDeltaNetLayer::forward_batch),
  /// then the FFN on all rows.
  void forward_batch(float* x, int N, const int* positions, std::span<const BatchSegment> segs,
                     const BlockInferScratch& g, WorkCounters& counters) const;

 private:
  // x [N, C] += ffn(norm2(x)): the inference half after the mixer, per token row.
  void ffn_cached(float* x, int N, const BlockInferScratch& g, WorkCounters& counters) const;
};

}  // namespace llm0
