// sgemm_team (ops/sgemm_team.h): float32 products shared out over the OpenMP team by rows.
// (1) Each product, at 2, 3 and 4 threads, against a double-precision sum within
// γ_{K+1} · (|β C0| + Σ_k |a b|) — any order of summing K + 1 float32 terms with FMAs stays inside
// it (Higham, Accuracy and Stability, eq. 3.5 and §3.1), u = 2⁻²⁴; C starts as NaN where β = 0,
// so a row no thread wrote fails, and a row written twice with β = 1 adds C0 twice and fails.
// (2) The same bits at 1, 2, 3 and 4 threads. The products are chosen so that at 3 and 4 threads
// cuts fall inside products (a thread runs the tail of one and the head of the next); one is small
// enough to go whole to one thread; every transpose combination training uses is there.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/threads.h"
#include "ops/sgemm_team.h"
#include "test_util.h"

namespace llm0 {
namespace {

double gamma_n(int n) {  // γ_n = n u / (1 - n u), u = 2⁻²⁴ (Higham eq. 3.5)
  const double nu = n * std::ldexp(1.0, -24);
  return nu / (1 - nu);
}

struct Shape { bool ta, tb; int M, N, K; float beta; };
// One comment per row: what it exercises.
const Shape kShapes[] = {
    {false, true, 1000, 128, 300, 0.0f},  // forward Y = X Wᵀ: 38M, split in 240-row grains
    {true, false, 200, 96, 1100, 1.0f},   // dW += dYᵀ X: A transposed, K long, accumulates
    {false, false, 33, 17, 9, 0.0f},      // tiny: OpenBLAS's small kernels; goes whole to a thread
    {false, false, 1000, 300, 128, 0.0f}, // dX = dY W: no transpose
    {true, true, 150, 200, 700, 1.0f},    // both transposed, M not a multiple of 16
};

struct Operands {
  std::vector<float> A, B, C0;
  Sgemm g;
};

std::vector<Operands> make_operands(std::mt19937& rng) {
  std::vector<Operands> ops;
  for (const Shape& s : kShapes) {
    Operands o;
    o.A = test::rand_vec((size_t)s.M * s.K, rng);
    o.B = test::rand_vec((size_t)s.K * s.N, rng);
    o.C0 = s.beta == 0.0f ? std::vector<float>((size_t)s.M * s.N,
                                               std::numeric_limits<float>::quiet_NaN())
                          : test::rand_vec((size_t)s.M * s.N, rng);
    o.g = {s.ta, s.tb, s.M, s.N, s.K, nullptr, s.ta ? s.M : s.K, nullptr, s.tb ? s.K : s.N,
           s.beta, nullptr, s.N};
    ops.push_back(std::move(o));
  }
  return ops;
}

// Runs every product at `threads` threads on copies of C0; returns the C of each.
std::vector<std::vector<float>> run_team(const std::vector<Operands>& ops, int threads) {
  std::vector<std::vector<float>> C;
  std::vector<Sgemm> g;
  for (const Operands& o : ops) C.push_back(o.C0);
  for (size_t j = 0; j < ops.size(); ++j) {
    Sgemm p = ops[j].g;
    p.A = ops[j].A.data(), p.B = ops[j].B.data(), p.C = C[j].data();
    g.push_back(p);
  }
  set_num_threads(threads);
  sgemm_team(g);
  set_num_threads(1);
  return C;
}

void expect_within_bound(const std::vector<Operands>& ops,
                         const std::vector<std::vector<float>>& C) {
  for (size_t j = 0; j < ops.size(); ++j) {
    const Sgemm& g = ops[j].g;
    const Operands& o = ops[j];
    int bad = 0;
    for (int m = 0; m < g.M; ++m)
      for (int n = 0; n < g.N; ++n) {
        const double c0 = g.beta == 0.0f ? 0.0 : o.C0[(size_t)m * g.N + n];
        double want = c0, mass = std::fabs(c0);
        for (int k = 0; k < g.K; ++k) {
          const double a = g.trans_a ? o.A[(size_t)k * g.M + m] : o.A[(size_t)m * g.K + k];
          const double b = g.trans_b ? o.B[(size_t)n * g.K + k] : o.B[(size_t)k * g.N + n];
          want += a * b, mass += std::fabs(a * b);
        }
        const double got = C[j][(size_t)m * g.N + n];
        if (!(std::fabs(got - want) <= gamma_n(g.K + 1) * mass) && bad++ < 3)
          ADD_FAILURE() << "product " << j << " C[" << m << ", " << n << "] = " << got
                        << " want " << want;
      }
  }
}

TEST(OpsSgemmTeam, EveryProductWithinTheDerivedBound) {
  std::mt19937 rng(11);
  const std::vector<Operands> ops = make_operands(rng);
  for (int threads : {2, 3, 4})  // 3 threads split product 3 (row 480), 4 threads 0 and 3 (720)
    expect_within_bound(ops, run_team(ops, threads));
}

TEST(OpsSgemmTeam, SameBitsForAnyThreadCount) {
  std::mt19937 rng(12);
  const std::vector<Operands> ops = make_operands(rng);
  const auto one = run_team(ops, 1);
  for (int threads : {2, 3, 4}) {
    const auto many = run_team(ops, threads);
    for (size_t j = 0; j < ops.size(); ++j)
      for (size_t i = 0; i < one[j].size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(one[j][i]), std::bit_cast<uint32_t>(many[j][i]))
            << "product " << j << " element " << i << " at " << threads << " threads";
  }
}

}  // namespace
}  // namespace llm0
