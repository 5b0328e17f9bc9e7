// RoPE, rotate-half and interleaved layouts. See rope.h.
#include "ops/rope.h"

#include <algorithm>
#include <cmath>
#include <vector>

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
  std::vector<double> inv_freq((size_t)half);
  for (int i = 0; i < half; ++i) inv_freq[(size_t)i] = std::pow(theta_, -2.0 * i / R_);
#pragma omp parallel for schedule(static) if ((long)(n - size_) * half > 65536)
  for (int p = size_; p < n; ++p)
    for (int i = 0; i < half; ++i) {
      const double a = p * inv_freq[(size_t)i];  // θ in double
      cos_[(size_t)p * half + i] = (float)std::cos(a);
      sin_[(size_t)p * half + i] = (float)std::sin(a);
    }
  size_ = n;
}

namespace {
// sign = +1 rotates by +θ (forward), -1 by -θ (backward). Pair i is (i, i + R/2) in the
// rotate-half layout, (2i, 2i + 1) interleaved; dims before `offset` and after offset + R stay.
void rope_apply(float* x, const int* positions, int N, int H, int D, const RopeTable& t, float sign,
                RopeLayout layout = RopeLayout::RotateHalf, int offset = 0) {
  const int R = t.rotary_dim(), half = R / 2;
  LLM0_CHECK(offset >= 0 && offset + R <= D, "rotary dims [{}, {}) exceed the head's {} dims",
             offset, offset + R, D);
  const int step = layout == RopeLayout::Interleaved ? 2 : 1;    // index of pair i's first dim
  const int other = layout == RopeLayout::Interleaved ? 1 : half;  // its partner's distance
  for (int n = 0; n < N; ++n)
    LLM0_CHECK(positions[n] >= 0 && positions[n] < t.size(), "RoPE position {} outside the table [0, {})",
               positions[n], t.size());
#pragma omp parallel for schedule(static) if ((long)N * H * R > 32768)
  for (int n = 0; n < N; ++n) {
    const float* cs = t.cos(positions[n]);
    const float* sn = t.sin(positions[n]);
    for (int h = 0; h < H; ++h) {
      float* v = x + ((long)n * H + h) * D + offset;
      for (int i = 0; i < half; ++i) {
        float* p = v + i * step;
        const float a = p[0], b = p[other], s = sign * sn[i];
        p[0] = a * cs[i] - b * s;
        p[other] = b * cs[i] + a * s;
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

void rope_forward(float* x, const int* positions, int N, int H, int D, const RopeTable& t,
                  RopeLayout layout, int offset) {
  rope_apply(x, positions, N, H, D, t, 1.0f, layout, offset);
}

void rope_backward(float* dx, const int* positions, int N, int H, int D, const RopeTable& t,
                   RopeLayout layout, int offset) {
  rope_apply(dx, positions, N, H, D, t, -1.0f, layout, offset);
}

void rope_forward(float* x, const int* positions, int N, int H, int D, int R, double theta) {
  rope_forward(x, positions, N, H, D, table_for(positions, N, R, theta));
}

void rope_backward(float* dx, const int* positions, int N, int H, int D, int R, double theta) {
  rope_backward(dx, positions, N, H, D, table_for(positions, N, R, theta));
}

}  // namespace llm0
