// Activation plans: every buffer the training step (per (B, T)) or an inference call (per Tn)
// needs, carved from one Arena so the hot path never allocates.
#pragma once
#include <span>
#include <vector>

#include "config/config.h"
#include "core/arena.h"
#include "layers/block.h"

namespace llm0 {

/// Training activations for B sequences of T tokens (N = B·T rows).
struct TrainPlan {
  int B = 0, T = 0;
  Arena arena;
  std::vector<BlockSaved> blocks;  // per layer
  BlockScratch scratch;            // shared by all layers
  std::vector<int> tokens, targets, positions;  // [N]
  float* x_final = nullptr;                     // [N, C] last block output
  float* lnf = nullptr;                         // [N, C] final norm output
  float *lnf_mean = nullptr, *lnf_rstd = nullptr;  // [N]
  float* logits = nullptr;                      // [N, V] (dlogits after backward)
  float* dstream = nullptr;                     // [N, C]
  /// Plans and allocates for (B, T). With `fuse_gate_up` (see mlp_gate_up_stacked) the dense
  /// SwiGLU MLPs keep gate|up as [N, 2F] rows (layers/mlp.h), else as two [N, F] buffers.
  TrainPlan(const ModelConfig& c, int B, int T, bool fuse_gate_up = false);
  bool fuse_gate_up() const { return fuse_gate_up_; }

 private:
  bool fuse_gate_up_ = false;
  void carve(const ModelConfig& c);
};

/// Whether every dense SwiGLU MLP among `blocks` holds float32 gate_proj and up_proj weights and
/// gradients one right after the other, without biases (as the parameter store declares them),
/// so that it can multiply by [gate_proj; up_proj] as one [2F, C] matrix. False when any MLP's
/// weights were rebound elsewhere (BF16 inference weights) or carry biases (mlp_bias).
bool mlp_gate_up_stacked(const ModelConfig& c, std::span<const Block> blocks);

/// Inference scratch for up to `rows` tokens per call (and, for MLA's expanded decode, `context`
/// cached positions); grows (reallocates) only when a call needs more than any before.
struct InferScratch {
  int rows = 0, context = 0;
  Arena arena;
  BlockInferScratch block;
  float *x = nullptr, *lnf = nullptr;  // [rows, C]
  std::vector<int> positions;          // [rows]
  std::vector<int> tokens;             // [rows] a ragged batch's tokens (forward_batch)
  std::vector<BatchSegment> segments;  // [B] one layer's segments (forward_batch)
  /// Room for n new tokens; with context > 0 (MLA's expanded form) also for `context` cached
  /// positions, of at most `capacity`.
  void ensure(const ModelConfig& c, int n, int context = 0, int capacity = 0);
};

}  // namespace llm0
