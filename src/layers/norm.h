// Norm layer: RMSNorm or LayerNorm (config norm_type) over the last dim of x [N, C], with its
// weight (and LayerNorm bias) viewed from the parameter store. Saved stats: mean, rstd [N].
// unit_offset (Qwen3-Next's Qwen3NextRMSNorm): the scale is (1 + w), w stored zero-centred.
#pragma once
#include <vector>

#include "config/config.h"

namespace llm0 {

struct NormLayer {
  NormKind kind = NormKind::RMSNorm;
  float eps = 1e-6f;
  int C = 0;
  const float* w = nullptr;  // [C] weight
  const float* b = nullptr;  // [C] bias (LayerNorm only)
  float* dw = nullptr;       // gradients (training only)
  float* db = nullptr;
  bool unit_offset = false;  // scale by (1 + w) (qwen3_next); ∂L/∂w is the same as for w

  /// y [N, C] = norm(x); mean/rstd [N] saved when non-null.
  void forward(float* y, float* mean, float* rstd, const float* x, int N) const;
  /// dx [N, C] overwritten; dw/db accumulate.
  void backward(float* dx, const float* dy, const float* x, const float* mean, const float* rstd,
                int N) const;
};

/// The scale a norm applies: w itself, or (1 + w) written into buf (resized to n) when
/// unit_offset.
const float* norm_scale(const float* w, int n, bool unit_offset, std::vector<float>& buf);

}  // namespace llm0
