// sgemm ceiling. See sgemm_peak.h.
#include "ledger/sgemm_peak.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

namespace llm0 {

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double measure_sgemm_gflops(int n, int repeats, bool cpu_time) {
  std::vector<float> a((size_t)n * n, 0.5f), b((size_t)n * n, 0.25f), c((size_t)n * n);
  const auto now = [cpu_time] {
    return cpu_time ? process_cpu_seconds()
                    : std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  double best = 1e30;
  for (int r = 0; r <= repeats; ++r) {  // r = 0 warms up threads and caches
    const double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    const double s = now() - t0;
    if (r > 0) best = std::min(best, s);
  }
  return 2.0 * n * (double)n * n / best / 1e9;
}

}  // namespace llm0
