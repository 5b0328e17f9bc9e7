// AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, arXiv:1711.05101, Algorithm 2),
// with PyTorch torch.optim.AdamW semantics (amsgrad=False), for step t = 1, 2, ...:
//   p <- p * (1 - lr * weight_decay)                       (only where receives_weight_decay)
//   m <- beta1 * m + (1 - beta1) * g
//   v <- beta2 * v + (1 - beta2) * g^2
//   p <- p - (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// The moments m and v are two flat float buffers laid out like the ParamStore (same offsets, same
// size), so the update is one pass over the store and checkpointing walks the same names.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"

namespace llm0 {

/// Hyper-parameters other than the learning rate (which the schedule passes to every step).
/// Defaults are nanoGPT's / GPT-3's (PyTorch's own defaults are betas (0.9, 0.999), wd 0.01).
struct AdamWConfig {
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
};

/// Weight-decay rule (nanoGPT's configure_optimizers, llm.c): a parameter with >= 2 dimensions
/// decays -- every linear weight and also the embeddings (model.embed_tokens.weight, and
/// lm_head.weight when untied; a tied embedding is one parameter and decays once); parameters
/// with < 2 dimensions (norm weights, biases) do not.
bool receives_weight_decay(const ParamInfo& p);

/// Names of the parameters of `store` that receive weight decay, in declaration order.
std::vector<std::string> weight_decay_params(const ParamStore& store);

class AdamW {
 public:
  /// Optimizer for a finalized store: m and v zero-filled with store.size() floats, t = 0.
  /// Throws llm0::Error if 0 <= beta1, beta2 < 1, eps > 0, weight_decay >= 0 does not hold.
  AdamW(const ParamStore& store, AdamWConfig cfg = {});

  /// One update of store.data() from store.grad() with learning rate lr; increments t first.
  /// Throws llm0::Error if the store's size differs from the one this optimizer was made for.
  /// No allocation; parallel over elements (OpenMP), bit-identical for any thread count.
  void step(ParamStore& store, double lr);

  const AdamWConfig& config() const { return cfg_; }
  /// Number of steps taken (t of the bias corrections); set it when restoring a checkpoint.
  int64_t step_count() const { return t_; }
  void set_step_count(int64_t t);
  /// First and second moments, size() floats each, at the store's offsets
  /// (m() + store.info(name).offset is the moment of parameter `name`). Writable for restore.
  float* m() { return m_.get(); }
  const float* m() const { return m_.get(); }
  float* v() { return v_.get(); }
  const float* v() const { return v_.get(); }
  size_t size() const { return size_; }

 private:
  AdamWConfig cfg_;
  size_t size_ = 0;
  int64_t t_ = 0;
  AlignedBuffer m_, v_;
};

}  // namespace llm0
