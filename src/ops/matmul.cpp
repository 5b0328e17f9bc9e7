// Linear layer on OpenBLAS. See matmul.h.
#include "ops/matmul.h"

#include <cblas.h>

#include <vector>

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

namespace {
// Whether the weights lie back to back in memory, W_k+1 = W_k + O_k·I: then they are one stacked
// matrix [Σ O_k, I]. ParamStore places q_proj, k_proj, v_proj (and gate_proj, up_proj) so when
// the layer has no biases between them.
bool stacked(std::span<const LinearOut> outs, int I) {
  for (size_t k = 1; k < outs.size(); ++k)
    if (outs[k].W != outs[k - 1].W + (long)outs[k - 1].O * I) return false;
  return outs.size() > 1;
}
}  // namespace

void linear_forward_group(std::span<const LinearOut> outs, const float* x, int N, int I) {
  if (N == 1) return matvec_group(outs, x, I);
  if (!stacked(outs, I)) {
    for (const LinearOut& o : outs) linear_forward(o.y, x, o.W, o.b, N, I, o.O);
    return;
  }
  // One sgemm over the stacked weights into yy[N, ΣO], then each row split into the outputs:
  // fewer, wider products (OpenBLAS packs x once and splits the wider output better across
  // threads: ~1.2× on 64-token prefill at 2 threads, docs/performance.md).
  int O = 0;
  for (const LinearOut& o : outs) O += o.O;
  thread_local std::vector<float> yy;
  yy.resize((size_t)N * O);
  const float* Y = yy.data();  // yy is this thread's: the loop's other threads must not name it
  linear_forward(yy.data(), x, outs[0].W, nullptr, N, I, O);
#pragma omp parallel for schedule(static) if ((long)N * O > 65536)
  for (int n = 0; n < N; ++n) {
    const float* row = Y + (long)n * O;
    for (const LinearOut& o : outs) {
      float* y = o.y + (long)n * o.O;
      for (int j = 0; j < o.O; ++j) y[j] = row[j] + (o.b ? o.b[j] : 0.0f);
      row += o.O;
    }
  }
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
