// Float32 products shared out over the OpenMP team by rows. See sgemm_team.h.
#include "ops/sgemm_team.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace llm0 {

namespace {
void run(const Sgemm& g, int m0, int m1) {
  if (m1 <= m0 || g.N == 0) return;
  const float* A = g.trans_a ? g.A + m0 : g.A + (long)m0 * g.lda;
  cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
              g.trans_b ? CblasTrans : CblasNoTrans, m1 - m0, g.N, g.K, 1.0f, A, g.lda, g.B, g.ldb,
              g.beta, g.C + (long)m0 * g.ldc, g.ldc);
}

double work(const Sgemm& g) { return (double)g.M * g.N * g.K; }

// The row of product g at which the work cut `c` (work units from the product's start) falls:
// a multiple of the piece granularity (kRowAlign rows, enough of them for kMinPieceMnk), or M.
int cut_row(const Sgemm& g, double c) {
  const double w = work(g);
  if (c <= 0) return 0;
  if (c >= w) return g.M;
  const double row_work = (double)g.N * g.K;
  const int grain = std::max(1, (int)std::ceil(kMinPieceMnk / row_work / kRowAlign)) * kRowAlign;
  const int row = (int)std::floor(c / w * g.M / grain + 0.5) * grain;
  return g.M - row < grain ? g.M : row;
}
}  // namespace

void sgemm_team(std::span<const Sgemm> products) {
  const int T = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (T == 1 || products.size() == 0) {
    for (const Sgemm& g : products) run(g, 0, g.M);
    return;
  }
  std::vector<double> start(products.size() + 1, 0.0);
  for (size_t j = 0; j < products.size(); ++j) start[j + 1] = start[j] + work(products[j]);
  const double total = start.back();
#pragma omp parallel num_threads(T)
  {
    // Thread t runs, of each product, the rows between the cuts t and t + 1; cut 0 is every
    // product's row 0 and the last cut its row M, so every row belongs to exactly one thread.
    const int t = omp_get_thread_num(), team = omp_get_num_threads();
    auto row_at = [&](size_t j, int cut) {
      if (cut == 0) return 0;
      if (cut == team) return products[j].M;
      return cut_row(products[j], total * cut / team - start[j]);
    };
    for (size_t j = 0; j < products.size(); ++j) run(products[j], row_at(j, t), row_at(j, t + 1));
  }
}

}  // namespace llm0
