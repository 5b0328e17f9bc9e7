// SwiGLU and GELU. See activation.h.
#include "ops/activation.h"

#include <algorithm>
#include <cmath>

#include "core/simd.h"

namespace llm0 {

namespace {
// The first ⌊n/16⌋·16 elements in 16-lane SIMD blocks, fv(i) handling [i, i + 16) (threads split
// the blocks), then the tail of fewer than 16 one by one with f(i).
template <class Scalar, class Vector>
void blocked(size_t n, Scalar f, Vector fv) {
  const long blocks = (long)(n / simd::kWidth);
#pragma omp parallel for schedule(static) if (n > 32768)
  for (long bl = 0; bl < blocks; ++bl) fv((size_t)bl * simd::kWidth);
  for (size_t i = (size_t)blocks * simd::kWidth; i < n; ++i) f(i);
}
}  // namespace

void swiglu_forward(float* h, const float* gate, const float* up, size_t n) {
  // silu(g) · u with the SIMD exp for every element, the tail of fewer than 16 too (zero-padded):
  // an element's value then does not depend on where it sits in the array (the serving engine's
  // batch-independent rows: the row's offset in [N, F] moves it across the 16-lane blocks).
  const auto f = [](simd::f32x16 g, simd::f32x16 u) { return g / (1.0f + simd::exp(-g)) * u; };
  const size_t body = n / simd::kWidth * simd::kWidth;
  blocked(
      body, [](size_t) {},
      [&](size_t i) { simd::store(h + i, f(simd::load(gate + i), simd::load(up + i))); });
  if (body == n) return;
  float g[simd::kWidth] = {}, u[simd::kWidth] = {}, y[simd::kWidth];
  std::copy(gate + body, gate + n, g), std::copy(up + body, up + n, u);
  simd::store(y, f(simd::load(g), simd::load(u)));
  std::copy(y, y + (n - body), h + body);
}

// d silu(g)/dg = σ(g) (1 + g (1 - σ(g))).
void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                     size_t n) {
  blocked(
      n,
      [&](size_t i) {
        const float g = gate[i], s = 1.0f / (1.0f + std::exp(-g));
        dup[i] = dh[i] * g * s;
        dgate[i] = dh[i] * up[i] * s * (1.0f + g * (1.0f - s));
      },
      [&](size_t i) {
        const simd::f32x16 g = simd::load(gate + i), d = simd::load(dh + i);
        const simd::f32x16 s = 1.0f / (1.0f + simd::exp(-g));
        simd::store(dup + i, d * g * s);
        simd::store(dgate + i, d * simd::load(up + i) * s * (1.0f + g * (1.0f - s)));
      });
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
