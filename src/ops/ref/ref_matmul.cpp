// Naive linear layer. See ref_matmul.h.
#include "ops/ref/ref_matmul.h"

namespace llm0::ref {

void linear_forward(double* y, const double* x, const double* W, const double* b, int N, int I,
                    int O) {
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < O; ++o) {
      double s = b ? b[o] : 0.0;
      for (int i = 0; i < I; ++i) s += x[(long)n * I + i] * W[(long)o * I + i];
      y[(long)n * O + o] = s;
    }
}

}  // namespace llm0::ref
