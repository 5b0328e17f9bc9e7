// sgemm ceiling. See sgemm_peak.h.
#include "ledger/sgemm_peak.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace llm0 {

double measure_sgemm_gflops(int n, int repeats) {
  std::vector<float> a((size_t)n * n, 0.5f), b((size_t)n * n, 0.25f), c((size_t)n * n);
  double best = 1e30;
  for (int r = 0; r <= repeats; ++r) {  // r = 0 warms up threads and caches
    const auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, s);
  }
  return 2.0 * n * (double)n * n / best / 1e9;
}

}  // namespace llm0
