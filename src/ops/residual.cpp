// Residual add. See residual.h.
#include "ops/residual.h"

namespace llm0 {

void residual_add(float* y, const float* x, size_t n) {
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

void residual_add_to(float* y, const float* x, const float* branch, size_t n) {
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; ++i) y[i] = x[i] + branch[i];
}

}  // namespace llm0
