// SwiGLU and GELU. See activation.h.
#include "ops/activation.h"

#include <cmath>

namespace llm0 {

void swiglu_forward(float* h, const float* gate, const float* up, size_t n) {
#pragma omp parallel for schedule(static) if (n > 32768)
  for (size_t i = 0; i < n; ++i) {
    const float g = gate[i];
    h[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

// d silu(g)/dg = σ(g) (1 + g (1 - σ(g))).
void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                     size_t n) {
#pragma omp parallel for schedule(static) if (n > 32768)
  for (size_t i = 0; i < n; ++i) {
    const float g = gate[i], s = 1.0f / (1.0f + std::exp(-g));
    dup[i] = dh[i] * g * s;
    dgate[i] = dh[i] * up[i] * s * (1.0f + g * (1.0f - s));
  }
}

namespace {
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;
}  // namespace

void gelu_forward(float* y, const float* x, size_t n, bool tanh_approx) {
#pragma omp parallel for schedule(static) if (n > 32768)
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = tanh_approx ? 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)))
                       : 0.5f * v * (1.0f + std::erf(v * kInvSqrt2));
  }
}

void gelu_backward(float* dx, const float* dy, const float* x, size_t n, bool tanh_approx) {
#pragma omp parallel for schedule(static) if (n > 32768)
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    float d;
    if (tanh_approx) {
      const float u = kSqrt2OverPi * (v + 0.044715f * v * v * v);
      const float t = std::tanh(u);
      const float du = kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * v * v);
      d = 0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du;
    } else {
      d = 0.5f * (1.0f + std::erf(v * kInvSqrt2)) + v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
    }
    dx[i] = dy[i] * d;
  }
}

}  // namespace llm0
