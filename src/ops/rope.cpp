// RoPE, rotate-half layout. See rope.h.
#include "ops/rope.h"

#include <cmath>

#include "core/check.h"

namespace llm0 {

namespace {
// sign = +1 rotates by +θ (forward), -1 by -θ (backward).
void rope_apply(float* x, const int* positions, int N, int H, int D, int R, double theta,
                double sign) {
  LLM0_CHECK(R % 2 == 0 && R <= D && R <= 1024, "rotary_dim={} must be even, <= head_dim={} and <= 1024", R, D);
  const int half = R / 2;
#pragma omp parallel for schedule(static) if (N > 4)
  for (int n = 0; n < N; ++n) {
    // cos/sin for this position: at most D/2 pairs, on the stack (no allocation).
    float cs[512], sn[512];
    const double pos = positions[n];
    for (int i = 0; i < half; ++i) {
      const double inv_freq = std::pow(theta, -2.0 * i / R);
      const double a = pos * inv_freq;
      cs[i] = (float)std::cos(a);
      sn[i] = (float)(sign * std::sin(a));
    }
    for (int h = 0; h < H; ++h) {
      float* v = x + ((long)n * H + h) * D;
      for (int i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half];
        v[i] = a * cs[i] - b * sn[i];
        v[i + half] = b * cs[i] + a * sn[i];
      }
    }
  }
}
}  // namespace

void rope_forward(float* x, const int* positions, int N, int H, int D, int R, double theta) {
  rope_apply(x, positions, N, H, D, R, theta, +1.0);
}

void rope_backward(float* dx, const int* positions, int N, int H, int D, int R, double theta) {
  rope_apply(dx, positions, N, H, D, R, theta, -1.0);
}

}  // namespace llm0
