// Norm layer: RMSNorm or LayerNorm (config norm_type) over the last dim of x [N, C], with its
// weight (and LayerNorm bias) viewed from the parameter store. Saved stats: mean, rstd [N].
#pragma once
#include "model/config.h"

namespace llm0 {

struct NormLayer {
  NormKind kind = NormKind::RMSNorm;
  float eps = 1e-6f;
  int C = 0;
  const float* w = nullptr;  // [C] weight
  const float* b = nullptr;  // [C] bias (LayerNorm only)
  float* dw = nullptr;       // gradients (training only)
  float* db = nullptr;

  /// y [N, C] = norm(x); mean/rstd [N] saved when non-null.
  void forward(float* y, float* mean, float* rstd, const float* x, int N) const;
  /// dx [N, C] overwritten; dw/db accumulate.
  void backward(float* dx, const float* dy, const float* x, const float* mean, const float* rstd,
                int N) const;
};

}  // namespace llm0
