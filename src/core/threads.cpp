// Threads: see threads.h.
#include "core/threads.h"

#include <cblas.h>
#include <omp.h>

#include "core/check.h"

namespace llm0 {

void set_num_threads(int n) {
  LLM0_CHECK(n >= 0 && n <= kMaxThreads, "--threads must be in [0, {}] (0 = all cores), got {}", kMaxThreads, n);
  if (n == 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
  openblas_set_num_threads(n);
}

void adopt_num_threads(int n) {
  LLM0_CHECK(n >= 0 && n <= kMaxThreads, "--threads must be in [0, {}] (0 = all cores), got {}", kMaxThreads, n);
  omp_set_num_threads(n == 0 ? omp_get_num_procs() : n);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace llm0
