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

Dropout Dropout::sub(uint64_t index) const { return {p, splitmix64(key + splitmix64(index + kGamma))}; }

bool dropout_keeps(const Dropout& d, size_t i) {
  const uint64_t h = pair_bits(d.key, i / 2);
  return (i % 2 ? h >> 32 : h & 0xFFFFFFFFull) < keep_below(d.p);
}

void dropout_apply(float* y, const float* x, size_t n, const Dropout& d) {
  LLM0_CHECK(d.p >= 0 && d.p < 1, "dropout probability {} must be in [0, 1)", d.p);
  const uint64_t t = keep_below(d.p);
  const float scale = (float)(1.0 / (1.0 - (double)d.p));
  const size_t pairs = (n + 1) / 2;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t k = 0; k < pairs; ++k) {
    const uint64_t h = pair_bits(d.key, k);
    const size_t i = 2 * k;
    y[i] = (h & 0xFFFFFFFFull) < t ? x[i] * scale : 0.0f;
    if (i + 1 < n) y[i + 1] = (h >> 32) < t ? x[i + 1] * scale : 0.0f;
  }
}

}  // namespace llm0
