// Naive RoPE in double. See ref_rope.h.
#include "ops/ref/ref_rope.h"

#include <cmath>

#include "core/check.h"

namespace llm0::ref {

void rope_forward(double* x, const int* positions, int N, int H, int D, int R, double theta) {
  LLM0_CHECK(R % 2 == 0 && R >= 0 && R <= D, "ref rope: rotary_dim={} must be even and <= "
             "head_dim={}", R, D);
  const int half = R / 2;
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h) {
      double* v = x + ((long)n * H + h) * D;
      for (int i = 0; i < half; ++i) {
        const double angle = positions[n] * std::pow(theta, -2.0 * i / R);
        const double c = std::cos(angle), s = std::sin(angle);
        const double a = v[i], b = v[i + half];
        v[i] = a * c - b * s;
        v[i + half] = b * c + a * s;
      }
    }
}

}  // namespace llm0::ref
