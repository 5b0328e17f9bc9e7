// Activation plans: every buffer the training step (per (B, T)) or an inference call (per Tn)
// needs, carved from one Arena so the hot path never allocates. Each layer plans its own buffers
// through its contract (layers/mixer.h, layers/ffn.h); the layers' scratch is overlaid (they run
// one at a time), their saved activations are not.
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
  std::vector<float> logits_max;                // [N] softmax shift per row (ops/loss.h)
  std::vector<double> logits_sum;               // [N] softmax normaliser per row
  float* dstream = nullptr;                     // [N, C]
  Dropout dropout;  // the last forward's residual-dropout draw (backward regenerates its masks)
  /// Plans and allocates for (B, T) and the model's `layers`. With `fuse_gate_up` (see
  /// mlp_gate_up_stacked) the dense SwiGLU MLPs keep gate|up as [N, 2F] rows (layers/mlp.h),
  /// else as two [N, F] buffers.
  TrainPlan(const ModelConfig& c, std::span<const Block> layers, int B, int T,
            bool fuse_gate_up = false);
  bool fuse_gate_up() const { return fuse_gate_up_; }

 private:
  bool fuse_gate_up_ = false;
  void carve(const ModelConfig& c, std::span<const Block> layers);
};

/// Whether every feed-forward among `blocks` may multiply by its SwiGLU [gate_proj; up_proj] as
/// one [2F, C] matrix (Ffn::gate_up_stacked: float32 weights and gradients adjacent, no biases).
/// False when any dense MLP's weights were rebound elsewhere (BF16 inference weights), carry
/// biases (mlp_bias) or are GELU.
bool mlp_gate_up_stacked(std::span<const Block> blocks);

/// Inference scratch for up to `rows` tokens per call (and, for MLA's expanded decode, `context`
/// cached positions); grows (reallocates) only when a call needs more than any before.
struct InferScratch {
  int rows = 0, context = 0;
  Arena arena;
  std::vector<BlockInferScratch> blocks;  // per layer (their mixer and FFN scratch overlaid)
  float *x = nullptr, *lnf = nullptr;  // [rows, C]
  std::vector<int> positions;          // [rows]
  std::vector<int> tokens;             // [rows] the sequences' new tokens, concatenated
  std::vector<BatchSegment> segments;  // [B] one layer's segments
  int chunk = 0;                       // Gated DeltaNet's chunk length the plan was made for
  /// Room for n new tokens; with context > 0 (MLA's expanded form) also for `context` cached
  /// positions, of at most `capacity`.
  void ensure(const ModelConfig& c, std::span<const Block> layers, int n, int context = 0,
              int capacity = 0);
};

}  // namespace llm0
