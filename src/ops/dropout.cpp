// Inverted dropout with a counter-based mask. See dropout.h.
#include "ops/dropout.h"

#include <cmath>

#include "core/check.h"

namespace llm0 {

namespace {
constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment, ⌊2⁶⁴/φ⌋ odd

// Elements 2k and 2k+1 are kept when their 32-bit halves of one hash are below `keep_below`.
uint64_t pair_bits(uint64_t key, size_t k) { return splitmix64(key + ((uint64_t)k + 1) * kGamma); }

// Keep threshold: P(u < t) = t / 2³² for u uniform on 32 bits, = 1 − p to within 2⁻³².
uint64_t keep_below(float p) { return (uint64_t)std::llround((1.0 - (double)p) * 4294967296.0); }
}  // namespace

uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Dropout Dropout::sub(uint64_t index) const {
  return {p, splitmix64(key + splitmix64(index + kGamma)), first};
}

bool dropout_keeps(const Dropout& d, size_t i) {
  const size_t g = d.first + i;
  const uint64_t h = pair_bits(d.key, g / 2);
  return (g % 2 ? h >> 32 : h & 0xFFFFFFFFull) < keep_below(d.p);
}

void dropout_apply(float* y, const float* x, size_t n, const Dropout& d) {
  LLM0_CHECK(d.p >= 0 && d.p < 1, "dropout probability {} must be in [0, 1)", d.p);
  const uint64_t t = keep_below(d.p);
  const float scale = (float)(1.0 / (1.0 - (double)d.p));
  // Global pairs [first/2, (first + n + 1)/2): each hash gives the two elements of its pair that
  // lie in this call's range.
  const size_t k0 = d.first / 2, k1 = (d.first + n + 1) / 2;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t k = k0; k < k1; ++k) {
    const uint64_t h = pair_bits(d.key, k);
    for (size_t g = 2 * k; g < 2 * k + 2; ++g) {
      if (g < d.first || g >= d.first + n) continue;
      const size_t i = g - d.first;
      y[i] = ((g % 2 ? h >> 32 : h & 0xFFFFFFFFull) < t) ? x[i] * scale : 0.0f;
    }
  }
}

}  // namespace llm0
