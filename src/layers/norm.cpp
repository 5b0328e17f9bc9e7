// Norm layer dispatch. See norm.h.
#include "layers/norm.h"

#include "ops/norm.h"

namespace llm0 {

void NormLayer::forward(float* y, float* mean, float* rstd, const float* x, int N) const {
  if (kind == NormKind::RMSNorm)
    rmsnorm_forward(y, rstd, x, w, N, C, eps);
  else
    layernorm_forward(y, mean, rstd, x, w, b, N, C, eps);
}

void NormLayer::backward(float* dx, const float* dy, const float* x, const float* mean,
                         const float* rstd, int N) const {
  if (kind == NormKind::RMSNorm)
    rmsnorm_backward(dx, dw, dy, x, w, rstd, N, C);
  else
    layernorm_backward(dx, dw, db, dy, x, w, mean, rstd, N, C);
}

}  // namespace llm0
