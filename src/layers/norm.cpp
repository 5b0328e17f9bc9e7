// Norm layer dispatch. See norm.h.
#include "layers/norm.h"

#include "ops/norm.h"

namespace llm0 {

const float* norm_scale(const float* w, int n, bool unit_offset, std::vector<float>& buf) {
  if (!unit_offset) return w;
  buf.resize((size_t)n);
  for (int i = 0; i < n; ++i) buf[(size_t)i] = 1.0f + w[i];
  return buf.data();
}

void NormLayer::forward(float* y, float* mean, float* rstd, const float* x, int N) const {
  std::vector<float> buf;
  if (kind == NormKind::RMSNorm)
    rmsnorm_forward(y, rstd, x, norm_scale(w, C, unit_offset, buf), N, C, eps);
  else
    layernorm_forward(y, mean, rstd, x, w, b, N, C, eps);
}

void NormLayer::backward(float* dx, const float* dy, const float* x, const float* mean,
                         const float* rstd, int N) const {
  std::vector<float> buf;
  if (kind == NormKind::RMSNorm)
    rmsnorm_backward(dx, dw, dy, x, norm_scale(w, C, unit_offset, buf), rstd, N, C);
  else
    layernorm_backward(dx, dw, db, dy, x, w, mean, rstd, N, C);
}

}  // namespace llm0
