// Thread lanes: data parallelism across the OpenMP threads of one process. A training batch of B
// sequences is cut into R = min(threads, B) lanes of whole sequences; each thread runs the whole
// forward and backward of its lane single-threaded (every op inside runs on one thread, OpenBLAS
// included), lane 0 on the model itself, lane r > 0 on a Model::LaneOf that reads the same
// weights and keeps its own gradients and activations; the lanes' gradients are then summed into
// the model's. The same sum as the whole batch's up to rounding: the loss and its gradient are sums
// over sequences, and every op of a dense or hybrid model treats sequences independently.
// Why: at two threads, sharing each product's rows between the threads (ops/sgemm_team.h) makes
// them meet after every product and every op; ~4.5% of a 10m step was a thread waiting for the
// other, and the vCPUs' speed varies too much for a split fixed in advance to remove it
// (docs/performance.md, issue 28). A lane meets the other lanes twice a step.
// Not for mixture-of-experts models (their routing and load-balancing loss couple the
// sequences of a batch), nor inside a parallel region or with nested OpenMP: there R = 1, the
// model itself.
#pragma once
#include <memory>
#include <vector>

#include "model/model.h"
#include "ops/dropout.h"

namespace llm0 {

class ThreadLanes {
 public:
  /// Lanes of `model`, which must outlive this object (lanes are made on the first forward that
  /// uses them).
  explicit ThreadLanes(Model& model) : model_(model) {}
  Model& model() { return model_; }

  /// The lanes a batch of B sequences runs in: min(threads, B), or 1 (MoE, nested parallelism,
  /// called inside a parallel region).
  int lanes_for(int B) const;

  /// Model::forward over tokens, targets [B, T] in lanes_for(B) lanes: lane r takes sequences
  /// [r·B/R, (r+1)·B/R). Returns Σ cross-entropy (nats) over the used targets, *count their
  /// number. Dropout: each lane draws the masks of its rows of the whole batch (Dropout::first),
  /// so they do not depend on R. Throws what Model::forward throws (the first lane's error, after
  /// every lane stopped).
  double forward(const int* tokens, const int* targets, int B, int T, long* count = nullptr,
                 const Dropout& dropout = {});
  /// Model::backward of the last forward: every lane's gradients for L = loss_scale · Σ loss
  /// accumulate (+=) into the model's params().grad(). `ready` (optional) hears of the whole store
  /// once, after the lanes' sum, when there was more than one lane; else as Model::backward.
  /// Throws llm0::Error before any forward.
  void backward(float loss_scale, const Model::GradsReady& ready = nullptr);

 private:
  Model& model_;
  std::vector<std::unique_ptr<Model>> lanes_;  // lanes 1, 2, ...
  int used_ = 0;                               // lanes of the last forward (0: none yet)
};

}  // namespace llm0
