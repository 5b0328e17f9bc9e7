// SwiGLU and GELU. See activation.h.
#include "ops/activation.h"

#include <algorithm>
#include <cmath>

#include "core/simd.h"

namespace llm0 {

namespace {
constexpr int W = simd::kWidth;

// Calls fb(n, f, lanes) for every 16-column block [f, f + lanes) of every row n < N of F columns
// (lanes = 16 but in a row's last block when 16 ∤ F); threads split the (row, block) pairs.
template <class Block>
void row_blocks(int N, int F, Block fb) {
  const long nb = (F + W - 1) / W, total = (long)N * nb;
#pragma omp parallel for schedule(static) if ((long)N * F > 32768)
  for (long i = 0; i < total; ++i) {
    const int n = (int)(i / nb), f = (int)(i % nb) * W;
    fb(n, f, std::min(W, F - f));
  }
}

using simd::load_part, simd::store_part;
}  // namespace

void swiglu_forward(float* h, const float* gate, const float* up, size_t n) {
  swiglu_forward_rows(h, gate, up, 1, (int)n, (long)n);
}

void swiglu_forward_rows(float* h, const float* gate, const float* up, int N, int F, long ld) {
  // silu(g) · u with the SIMD exp for every element, a row's tail of fewer than 16 too
  // (zero-padded): an element's value then does not depend on where it sits in the array (the
  // serving engine's batch-independent rows: the row's offset in [N, F] moves it across blocks).
  row_blocks(N, F, [&](int n, int f, int lanes) {
    const long i = (long)n * ld + f;
    const simd::f32x16 g = load_part(gate + i, lanes), u = load_part(up + i, lanes);
    store_part(h + (long)n * F + f, g / (1.0f + simd::exp(-g)) * u, lanes);
  });
}

void swiglu_backward(float* dgate, float* dup, const float* dh, const float* gate, const float* up,
                     size_t n) {
  swiglu_backward_rows(dgate, dup, dh, gate, up, 1, (int)n, (long)n);
}

// d silu(g)/dg = σ(g) (1 + g (1 - σ(g))).
void swiglu_backward_rows(float* dgate, float* dup, const float* dh, const float* gate,
                          const float* up, int N, int F, long ld) {
  row_blocks(N, F, [&](int n, int f, int lanes) {
    const long i = (long)n * ld + f;
    const simd::f32x16 g = load_part(gate + i, lanes), d = load_part(dh + (long)n * F + f, lanes);
    const simd::f32x16 s = 1.0f / (1.0f + simd::exp(-g));
    store_part(dup + i, d * g * s, lanes);
    store_part(dgate + i, d * load_part(up + i, lanes) * s * (1.0f + g * (1.0f - s)), lanes);
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
