// Memory-read bandwidth. See read_bandwidth.h.
#include "ledger/read_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstddef>

#include "core/tensor.h"

namespace llm0 {

double measure_read_bandwidth(int repeats) {
  constexpr size_t kLanes = 64;
  const size_t n = (size_t)64 << 20, blocks = n / kLanes;
  // Same allocator as the weights (huge pages), so the ceiling is measured like the workload.
  const AlignedBuffer buf = aligned_zeros(n);
  float* a = buf.get();
  std::fill_n(a, n, 1.0f);
  double best = 1e30;
  volatile float sink = 0;
  for (int r = 0; r <= repeats; ++r) {  // r = 0 faults the pages in and warms the threads up
    const auto t0 = std::chrono::steady_clock::now();
    float s = 0;
#pragma omp parallel reduction(+ : s)
    {
      float acc[kLanes] = {};
#pragma omp for schedule(static)
      for (size_t b = 0; b < blocks; ++b)
        for (size_t k = 0; k < kLanes; ++k) acc[k] += a[b * kLanes + k];
      for (size_t k = 0; k < kLanes; ++k) s += acc[k];
    }
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, t);
    sink = sink + s;
  }
  return (double)n * sizeof(float) / best;
}

}  // namespace llm0
