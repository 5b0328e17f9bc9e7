// RoPE, rotate-half layout. See rope.h.
#include "ops/rope.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace llm0 {

RopeTable::RopeTable(int rotary_dim, double theta) : R_(rotary_dim), theta_(theta) {
  LLM0_CHECK(R_ % 2 == 0 && R_ >= 0 && R_ <= 1024 && theta > 0,
             "RoPE: rotary_dim={} must be even in [0, 1024] and rope_theta={} > 0", R_, theta);
}

void RopeTable::ensure(int n) {
  if (n <= size_) return;
  const int half = R_ / 2;
  cos_.resize((size_t)n * half), sin_.resize((size_t)n * half);
  for (int p = size_; p < n; ++p)
    for (int i = 0; i < half; ++i) {
      const double a = p * std::pow(theta_, -2.0 * i / R_);  // θ in double
      cos_[(size_t)p * half + i] = (float)std::cos(a);
      sin_[(size_t)p * half + i] = (float)std::sin(a);
    }
  size_ = n;
}

namespace {
// sign = +1 rotates by +θ (forward), -1 by -θ (backward).
void rope_apply(float* x, const int* positions, int N, int H, int D, const RopeTable& t, float sign) {
  const int R = t.rotary_dim(), half = R / 2;
  LLM0_CHECK(R <= D, "rotary_dim={} exceeds head_dim={}", R, D);
  for (int n = 0; n < N; ++n)
    LLM0_CHECK(positions[n] >= 0 && positions[n] < t.size(), "RoPE position {} outside the table [0, {})",
               positions[n], t.size());
#pragma omp parallel for schedule(static) if ((long)N * H * R > 32768)
  for (int n = 0; n < N; ++n) {
    const float* cs = t.cos(positions[n]);
    const float* sn = t.sin(positions[n]);
    for (int h = 0; h < H; ++h) {
      float* v = x + ((long)n * H + h) * D;
      for (int i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half], s = sign * sn[i];
        v[i] = a * cs[i] - b * s;
        v[i + half] = b * cs[i] + a * s;
      }
    }
  }
}

RopeTable table_for(const int* positions, int N, int R, double theta) {
  RopeTable t(R, theta);
  int mx = 0;
  for (int n = 0; n < N; ++n) mx = std::max(mx, positions[n]);
  t.ensure(mx + 1);
  return t;
}
}  // namespace

void rope_forward(float* x, const int* positions, int N, int H, int D, const RopeTable& t) {
  rope_apply(x, positions, N, H, D, t, 1.0f);
}

void rope_backward(float* dx, const int* positions, int N, int H, int D, const RopeTable& t) {
  rope_apply(dx, positions, N, H, D, t, -1.0f);
}

void rope_forward(float* x, const int* positions, int N, int H, int D, int R, double theta) {
  rope_forward(x, positions, N, H, D, table_for(positions, N, R, theta));
}

void rope_backward(float* dx, const int* positions, int N, int H, int D, int R, double theta) {
  rope_backward(dx, positions, N, H, D, table_for(positions, N, R, theta));
}

}  // namespace llm0
