// Linear layer on OpenBLAS. See matmul.h.
#include "ops/matmul.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include "ops/bf16_gemm.h"
#include "ops/bf16_kernels.h"
#include "ops/linear_rows.h"
#include "ops/sgemm_team.h"

namespace llm0 {

namespace {
// y[N, O] = x[N, I] · W[O, I]ᵀ (+ y when b was stored there) for BF16 W: panels of P rows
// widened to float32 and multiplied with sgemm, one panel per thread at a time (OpenBLAS runs
// single-threaded inside the parallel region).
void linear_forward_bf16_panels(float* y, const float* x, const uint16_t* W, bool beta_one, int N,
                                int I, int O) {
  const int P = std::max(16, std::min(256, (int)((1 << 17) / std::max(I, 1)) / 16 * 16));
  const int panels = (O + P - 1) / P;
  const Isa k = bf16_kernel();
#pragma omp parallel
  {
    std::vector<float> Wp((size_t)P * I);  // [P, I] float32 panel
#pragma omp for schedule(dynamic, 1)
    for (int p = 0; p < panels; ++p) {
      const int o0 = p * P, rows = std::min(P, O - o0);
      bf16_widen(Wp.data(), W + (long)o0 * I, (long)rows * I, k);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, rows, I, 1.0f, x, I, Wp.data(), I,
                  beta_one ? 1.0f : 0.0f, y + o0, O);
    }
  }
}

// y[N, O] = b[O] in every row (b null: nothing), for a product that then accumulates (β = 1).
void fill_bias_rows(float* y, const float* b, int N, int O) {
  if (!b) return;
  for (int n = 0; n < N; ++n) std::copy(b, b + O, y + (long)n * O);
}
}  // namespace

void linear_forward(float* y, const float* x, Weight W, const float* b, int N, int I, int O,
                    const LinearKernel& k) {
  if (k.fixed_order) return linear_rows(y, x, W, b, N, I, O, k.panels);
  if ((N == 1 && !W.bf16_products) || (W.bf16 && N < 4)) {  // decode: matrix-vector products, y[O] = W[O, I] · x[I] + b
    for (int n = 0; n < N; ++n) matvec(y + (long)n * O, W, x + (long)n * I, b, O, I);
    return;
  }
  fill_bias_rows(y, b, N, O);
  if (W.bf16) return linear_forward_bf16_panels(y, x, W.bf16, b != nullptr, N, I, O);
  if (W.bf16_products)  // y[N, O] (+)= bf16(x[N, I]) · bf16(W[O, I])ᵀ
    return gemm_bf16(y, O, {x, I, 1}, {W.f32, I, 1}, N, O, I, b != nullptr);
  // y[N, O] (+)= x[N, I] · W[O, I]ᵀ
  const Sgemm g{false, true, N, O, I, x, I, W.f32, I, b ? 1.0f : 0.0f, y, O};
  sgemm_team({&g, 1});
}

void linear_forward_group(std::span<const LinearOut> outs, const float* x, int N, int I,
                          const LinearKernel& k) {
  if (k.fixed_order) {
    for (const LinearOut& o : outs) linear_rows(o.y, x, o.W, o.b, N, I, o.O, k.panels);
    return;
  }
  const bool bf16_products = std::all_of(outs.begin(), outs.end(), [](const LinearOut& o) {
    return o.W.f32 && o.W.bf16_products;
  });
  if (bf16_products) {
    // Mixed-precision training: x is rounded and packed once for all the products (up to 4 per
    // call), each y[N, O] (+)= bf16(x) · bf16(W)ᵀ on top of its bias rows.
    for (size_t j0 = 0; j0 < outs.size(); j0 += 4) {
      GemmOut g[4];
      const size_t n = std::min<size_t>(4, outs.size() - j0);
      for (size_t j = 0; j < n; ++j) {
        const LinearOut& o = outs[j0 + j];
        fill_bias_rows(o.y, o.b, N, o.O);
        g[j] = {o.y, o.O, {o.W.f32, I, 1}, o.O, o.b != nullptr};
      }
      gemm_bf16_shared_a({x, I, 1}, N, I, {g, n});
    }
    return;
  }
  if (N == 1) return matvec_group(outs, x, I);
  const bool f32 = std::all_of(outs.begin(), outs.end(), [](const LinearOut& o) {
    return o.W.f32 && !o.W.bf16_products;
  });
  if (!f32) {
    for (const LinearOut& o : outs) linear_forward(o.y, x, o.W, o.b, N, I, o.O);
    return;
  }
  // Every y[N, O] (+)= x[N, I] · W[O, I]ᵀ on top of its bias rows, shared out as one piece of work.
  std::vector<Sgemm> g;
  for (const LinearOut& o : outs) {
    fill_bias_rows(o.y, o.b, N, o.O);
    g.push_back({false, true, N, o.O, I, x, I, o.W.f32, I, o.b ? 1.0f : 0.0f, o.y, o.O});
  }
  sgemm_team(g);
}

void linear_backward(float* dx, float* dW, float* db, const float* dy, const float* x,
                     Weight Wt, int N, int I, int O, bool accumulate_dx) {
  const float* W = Wt;  // float32 (throws for a BF16 inference weight)
  if (Wt.bf16_products) {
    if (dx)  // dx[N, I] (+)= bf16(dy[N, O]) · bf16(W[O, I]): B(i, o) = W[o·I + i]
      gemm_bf16(dx, I, {dy, O, 1}, {W, 1, I}, N, I, O, accumulate_dx);
    if (dW)  // dW[O, I] += bf16(dy)ᵀ · bf16(x): A(o, n) = dy[n·O + o], B(i, n) = x[n·I + i]
      gemm_bf16(dW, I, {dy, 1, O}, {x, 1, I}, O, I, N, true);
  } else {  // dx and dW side by side (equal work: at two threads, one each)
    Sgemm g[2];
    int n = 0;
    if (dx)  // dx[N, I] (+)= dy[N, O] · W[O, I]
      g[n++] = {false, false, N, I, O, dy, O, W, I, accumulate_dx ? 1.0f : 0.0f, dx, I};
    if (dW)  // dW[O, I] += dy[N, O]ᵀ · x[N, I]
      g[n++] = {true, false, O, I, N, dy, O, x, I, 1.0f, dW, I};
    sgemm_team({g, (size_t)n});
  }
  if (db) {
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) db[o] += dy[(long)n * O + o];
  }
}

}  // namespace llm0
