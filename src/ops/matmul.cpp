// Linear layer on OpenBLAS. See matmul.h.
#include "ops/matmul.h"

#include <cblas.h>

namespace llm0 {

void linear_forward(float* y, const float* x, const float* W, const float* b, int N, int I, int O) {
  if (N == 1) {  // decode: a matrix-vector product, y[O] = W[O, I] · x[I] + b
    matvec(y, W, x, b, O, I);
    return;
  }
  if (b) {
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) y[(long)n * O + o] = b[o];
  }
  // y[N, O] (+)= x[N, I] · W[O, I]ᵀ
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, O, I, 1.0f, x, I, W, I, b ? 1.0f : 0.0f,
              y, O);
}

void linear_forward_group(std::span<const LinearOut> outs, const float* x, int N, int I) {
  if (N == 1) return matvec_group(outs, x, I);
  for (const LinearOut& o : outs) linear_forward(o.y, x, o.W, o.b, N, I, o.O);
}

void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x,
                     const float* W, int N, int I, int O, bool accumulate_dx) {
  if (dx)  // dx[N, I] = dy[N, O] · W[O, I]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, I, O, 1.0f, dy, O, W, I,
                accumulate_dx ? 1.0f : 0.0f, dx, I);
  if (dW)  // dW[O, I] += dy[N, O]ᵀ · x[N, I]
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, O, I, N, 1.0f, dy, O, x, I, 1.0f, dW, I);
  if (db) {
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) db[o] += dy[(long)n * O + o];
  }
}

}  // namespace llm0
