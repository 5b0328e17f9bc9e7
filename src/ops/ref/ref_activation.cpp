// Naive activations in double. See ref_activation.h.
#include "ops/ref/ref_activation.h"

#include <cmath>
#include <numbers>

namespace llm0::ref {

void swiglu_forward(double* h, const double* gate, const double* up, size_t n) {
  for (size_t i = 0; i < n; ++i) h[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
}

void gelu_forward(double* y, const double* x, size_t n, bool tanh_approx) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  for (size_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = tanh_approx ? 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)))
                       : 0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2));
  }
}

}  // namespace llm0::ref
