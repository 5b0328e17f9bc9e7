// BF16 training products (ops/bf16_gemm.h and linear_forward / linear_backward with bf16_products):
// each product against a double-precision sum of the same BF16-rounded operands, within the
// derived bound γ_K · Σ|a b| (float32 accumulation, unit roundoff u = 2⁻²⁴; bf16_gemm.h), and
// against the unrounded float32 operands within that plus the operand rounding (2·2⁻⁸ + 2⁻¹⁶)
// · Σ|a b|. Shapes: odd sizes, K odd and longer than a K block (256), M and N not multiples of
// the 8 × 32 tile; every tile kernel this CPU runs (scalar always, vdpbf16ps with AVX512_BF16).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/half.h"
#include "core/threads.h"
#include "ops/bf16_gemm.h"
#include "ops/bf16_gemm_kernel.h"
#include "ops/matmul.h"
#include "test_util.h"

namespace llm0 {
namespace {

double r16(float x) { return bf16_to_float(float_to_bf16(x)); }
double gamma_n(int n) {  // γ_n = n u / (1 - n u), u = 2⁻²⁴ (Higham eq. 3.5)
  const double nu = n * std::ldexp(1.0, -24);
  return nu / (1 - nu);
}

// C[M, N] = C0 + Σ_k A(m, k) B(n, k) checked element by element: `rounded` against the bf16
// operands (bound γ_{K+1}·(|C0| + Σ|ab|), one more term for the accumulated C0), else against the
// float32 ones (plus the rounding of both operands: |ab - bf16(a)bf16(b)| <= (2·2⁻⁸ + 2⁻¹⁶)|ab|).
void expect_product(const std::vector<float>& C, long ldc, const std::vector<float>& C0,
                    GemmOperand A, GemmOperand B, int M, int N, int K, bool rounded) {
  const double op = rounded ? 0 : 2 * std::ldexp(1.0, -8) + std::ldexp(1.0, -16);
  int bad = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const double c0 = C0.empty() ? 0 : C0[(size_t)(m * ldc + n)];
      double want = c0, mass = std::fabs(c0), mass_f = 0;
      for (int k = 0; k < K; ++k) {
        const float a = A.p[m * A.rs + k * A.ks], b = B.p[n * B.rs + k * B.ks];
        const double p = rounded ? r16(a) * r16(b) : (double)a * b;
        want += p, mass += std::fabs(r16(a) * r16(b)), mass_f += std::fabs((double)a * b);
      }
      const double bound = gamma_n(K + 1) * mass + op * mass_f + K * std::ldexp(1.0, -126);
      const double got = C[(size_t)(m * ldc + n)];
      if (std::fabs(got - want) > bound && bad++ < 5)
        ADD_FAILURE() << "C[" << m << ", " << n << "] = " << got << " want " << want << " bound "
                      << bound;
    }
}

struct Case { int M, N, K; bool acc; };
// One comment per row: what it exercises.
const Case kCases[] = {
    {1, 1, 1, false},      // single element, K odd (zero-padded pair)
    {7, 33, 5, false},     // M < MR, N one past a tile, tiny K
    {37, 45, 301, true},   // K crosses a 256 block and is odd; accumulate into C
    {8, 32, 256, false},   // exactly one tile and one K block
    {100, 70, 513, true},  // several A tasks (MC = 96 rows), three K blocks
};

// Row-major A [M, K] and B [N, K] (ks = 1), and the same through transposed storage (rs = 1).
void run_case(const Case& c, bool transposed) {
  std::mt19937 rng(c.M * 1000 + c.N + c.K);
  const auto a = test::rand_vec((size_t)c.M * c.K, rng, -2.0f, 2.0f);
  const auto b = test::rand_vec((size_t)c.N * c.K, rng, -2.0f, 2.0f);
  const GemmOperand A = transposed ? GemmOperand{a.data(), 1, c.M} : GemmOperand{a.data(), c.K, 1};
  const GemmOperand B = transposed ? GemmOperand{b.data(), 1, c.N} : GemmOperand{b.data(), c.K, 1};
  const long ldc = c.N + 3;  // a row stride wider than N: columns past N must stay untouched
  std::vector<float> C = test::rand_vec((size_t)c.M * ldc, rng), C0 = C;
  gemm_bf16(C.data(), ldc, A, B, c.M, c.N, c.K, c.acc);
  expect_product(C, ldc, c.acc ? C0 : std::vector<float>{}, A, B, c.M, c.N, c.K, true);
  expect_product(C, ldc, c.acc ? C0 : std::vector<float>{}, A, B, c.M, c.N, c.K, false);
  for (int m = 0; m < c.M; ++m)
    for (long n = c.N; n < ldc; ++n) EXPECT_EQ(C[(size_t)(m * ldc + n)], C0[(size_t)(m * ldc + n)]);
}

TEST(OpsBf16Gemm, ProductsWithinTheDerivedBound) {
  SCOPED_TRACE(format("kernel level {} (fast: {})", isa_name(kernel_isa()), gemm_bf16_fast()));
  for (const Case& c : kCases)
    for (bool t : {false, true}) {
      SCOPED_TRACE(format("M={} N={} K={} acc={} transposed={}", c.M, c.N, c.K, c.acc, t));
      run_case(c, t);
    }
}

// Each element is one thread's fixed-order sum: 1 and 3 threads give the same bits (3 threads
// share the panels and packing of a product with several A tasks and B panels).
TEST(OpsBf16Gemm, SameBitsForAnyThreadCount) {
  const int M = 200, N = 100, K = 300;
  std::mt19937 rng(9);
  const auto a = test::rand_vec((size_t)M * K, rng), b = test::rand_vec((size_t)N * K, rng);
  std::vector<float> c1((size_t)M * N), c3((size_t)M * N);
  const int saved = num_threads();
  set_num_threads(1);
  gemm_bf16(c1.data(), N, {a.data(), 1, M}, {b.data(), K, 1}, M, N, K, false);
  set_num_threads(3);
  gemm_bf16(c3.data(), N, {a.data(), 1, M}, {b.data(), K, 1}, M, N, K, false);
  set_num_threads(saved);
  EXPECT_EQ(c1, c3);
  expect_product(c3, N, {}, {a.data(), 1, M}, {b.data(), K, 1}, M, N, K, true);
}

// The scalar tile and the vdpbf16ps tile on the same packed panels (when the CPU has it): both
// within the bound of the exact sum (the hardware may fuse a pair's two additions).
TEST(OpsBf16Gemm, TileKernelsAgreeWithinTheBound) {
  using namespace bf16_gemm_detail;
  if (!cpu_supports(Isa::Avx512Bf16)) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  std::mt19937 rng(5);
  const int kp = 150;  // 300 k
  std::vector<uint16_t> a((size_t)kp * MR * 2), b((size_t)kp * NR * 2);
  for (auto* v : {&a, &b})
    for (uint16_t& e : *v) e = float_to_bf16(std::uniform_real_distribution<float>(-2, 2)(rng));
  std::vector<float> cs(MR * NR), cv(MR * NR);
  tile_scalar(cs.data(), NR, a.data(), b.data(), kp, MR, NR, false);
  tile_avx512bf16(cv.data(), NR, a.data(), b.data(), kp, MR, NR, false);
  for (int m = 0; m < MR; ++m)
    for (int n = 0; n < NR; ++n) {
      double want = 0, mass = 0;
      for (int q = 0; q < kp; ++q)
        for (int j = 0; j < 2; ++j) {
          const double p = (double)bf16_to_float(a[((size_t)q * MR + m) * 2 + j]) *
                           bf16_to_float(b[((size_t)q * NR + n) * 2 + j]);
          want += p, mass += std::fabs(p);
        }
      const double bound = gamma_n(2 * kp) * mass;
      EXPECT_NEAR(cs[(size_t)(m * NR + n)], want, bound) << m << "," << n;
      EXPECT_NEAR(cv[(size_t)(m * NR + n)], want, bound) << m << "," << n;
    }
}

// The vector packing against the portable one, bit for bit (normal inputs: both round to nearest
// even), over several panels of both panel heights, both source layouts (k contiguous, rows
// contiguous), rows not a multiple of the panel or of 16 and kc odd, shorter and longer than 32.
TEST(OpsBf16Gemm, PackKernelsAgree) {
  using namespace bf16_gemm_detail;
  if (!cpu_supports(Isa::Avx512Bf16)) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  std::mt19937 rng(11);
  const int R = 70, K = 101;  // source rows × k, read from offsets (r0, k0) = (3, 2)
  const auto src = test::rand_vec((size_t)(R + 3) * (K + 2), rng, -3.0f, 3.0f);
  for (int P : {MR, NR})
    for (int rows : {1, 8, 13, 40, 70})
      for (int kc : {1, 31, 33, 99})
        for (bool transposed : {false, true}) {
          SCOPED_TRACE(format("P={} rows={} kc={} transposed={}", P, rows, kc, transposed));
          const GemmOperand X = transposed ? GemmOperand{src.data(), 1, R + 3}
                                           : GemmOperand{src.data(), K + 2, 1};
          const size_t n = (size_t)(rows + P - 1) / P * P * (kc + 1);
          std::vector<uint16_t> want(n + 64, 7), got(n + 64, 7);  // 7: must stay past the panels
          pack_scalar(want.data(), X, 3, rows, 2, kc, P);
          pack_avx512bf16(got.data(), X, 3, rows, 2, kc, P);
          EXPECT_EQ(want, got);
          EXPECT_EQ(got[n], 7);
        }
}

// Products sharing A (q/k/v on one input) give each C the bits of its own gemm_bf16 call, with
// N not a multiple of the tile, one product accumulating and one of zero width.
TEST(OpsBf16Gemm, SharedAGivesTheBitsOfSeparateProducts) {
  const int M = 50, K = 300;
  const int Ns[4] = {45, 0, 8, 33};
  std::mt19937 rng(4);
  const auto a = test::rand_vec((size_t)M * K, rng);
  std::vector<std::vector<float>> b, sep, shared;
  GemmOut outs[4];
  for (int j = 0; j < 4; ++j) {
    b.push_back(test::rand_vec((size_t)std::max(Ns[j], 1) * K, rng));
    sep.push_back(test::rand_vec((size_t)M * std::max(Ns[j], 1), rng));
    shared.push_back(sep.back());
  }
  for (int j = 0; j < 4; ++j) {
    gemm_bf16(sep[j].data(), Ns[j], {a.data(), K, 1}, {b[j].data(), K, 1}, M, Ns[j], K, j == 3);
    outs[j] = {shared[j].data(), Ns[j], {b[j].data(), K, 1}, Ns[j], j == 3};
  }
  gemm_bf16_shared_a({a.data(), K, 1}, M, K, outs);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(sep[j], shared[j]) << "product " << j;
}

// B packed once (pack_b) and read by ranges, as attention reads a head's keys and values: each
// product has the bits of gemm_bf16 on the same sub-matrix (columns from a panel edge, k from an
// even offset, K odd so the last pair reads one k past the range against A's zero padding, a
// row-major and a transposed B, accumulate or not); a misaligned range is refused.
TEST(OpsBf16Gemm, PackedBGivesTheBitsOfGemmBf16) {
  const int NB = 100, KB = 300;  // the packed operand: K longer than a K block of gemm_bf16
  std::mt19937 rng(13);
  const auto b = test::rand_vec((size_t)NB * KB, rng);
  for (bool transposed : {false, true}) {
    const GemmOperand B = transposed ? GemmOperand{b.data(), 1, NB} : GemmOperand{b.data(), KB, 1};
    PackedB packed;
    pack_b(packed, B, NB, KB);
    for (const auto [M, n0, N, k0, K, acc] :
         {std::array{13, 32, 45, 6, 33, 0}, std::array{64, 0, 100, 0, 300, 1},
          std::array{3, 96, 4, 298, 2, 1}, std::array{20, 64, 36, 4, 291, 0}}) {
      SCOPED_TRACE(format("transposed={} M={} n0={} N={} k0={} K={} acc={}", transposed, M, n0, N,
                          k0, K, acc));
      const auto a = test::rand_vec((size_t)M * K, rng);
      std::vector<float> want = test::rand_vec((size_t)M * N, rng), got = want;
      const GemmOperand sub{b.data() + n0 * B.rs + k0 * B.ks, B.rs, B.ks};
      gemm_bf16(want.data(), N, {a.data(), K, 1}, sub, M, N, K, acc);
      gemm_bf16_packed_b(got.data(), N, {a.data(), K, 1}, M, K, packed, n0, k0, N, acc);
      EXPECT_EQ(got, want);
    }
  }
  PackedB packed;
  pack_b(packed, {b.data(), KB, 1}, NB, KB);
  std::vector<float> c(64);
  EXPECT_THROW(gemm_bf16_packed_b(c.data(), 8, {b.data(), KB, 1}, 8, 4, packed, 16, 0, 8, false),
               Error);  // n0 not at a panel edge
  EXPECT_THROW(gemm_bf16_packed_b(c.data(), 8, {b.data(), KB, 1}, 8, 4, packed, 0, 3, 8, false),
               Error);  // odd k0
  EXPECT_THROW(gemm_bf16_packed_b(c.data(), 8, {b.data(), KB, 1}, 8, 4, packed, 96, 0, 8, false),
               Error);  // past the packed columns
}

// linear_forward / linear_backward with bf16_products: y = x Wᵀ + b, dx = dy W (and +=),
// dW += dyᵀ x, db += Σ dy (float32, exact order as the float32 path).
TEST(OpsBf16Gemm, LinearLayerProductsThroughBf16) {
  const int N = 19, I = 45, O = 37;
  std::mt19937 rng(3);
  const auto x = test::rand_vec((size_t)N * I, rng), W = test::rand_vec((size_t)O * I, rng);
  const auto b = test::rand_vec((size_t)O, rng), dy = test::rand_vec((size_t)N * O, rng);
  Weight w(W.data());
  w.bf16_products = true;
  std::vector<float> y((size_t)N * O);
  linear_forward(y.data(), x.data(), w, b.data(), N, I, O);
  expect_product(y, O, [&] {  // C0 = the bias rows
    std::vector<float> c((size_t)N * O);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) c[(size_t)(n * O + o)] = b[(size_t)o];
    return c;
  }(), {x.data(), I, 1}, {W.data(), I, 1}, N, O, I, true);
  std::vector<float> dx = test::rand_vec((size_t)N * I, rng), dx0 = dx;
  std::vector<float> dW = test::rand_vec((size_t)O * I, rng), dW0 = dW, db((size_t)O, 0.5f);
  linear_backward(dx.data(), dW.data(), db.data(), dy.data(), x.data(), w, N, I, O, true);
  expect_product(dx, I, dx0, {dy.data(), O, 1}, {W.data(), 1, I}, N, I, O, true);
  expect_product(dW, I, dW0, {dy.data(), 1, O}, {x.data(), 1, I}, O, I, N, true);
  for (int o = 0; o < O; ++o) {
    float s = 0.5f;
    for (int n = 0; n < N; ++n) s += dy[(size_t)(n * O + o)];
    EXPECT_EQ(db[(size_t)o], s);
  }
}

// linear_forward_group with bf16_products (q/k/v sharing x, one with a bias, five outputs so the
// group is split into calls of at most four): each y has the bits of its own linear_forward.
TEST(OpsBf16Gemm, GroupedForwardGivesTheBitsOfEachLinear) {
  const int N = 21, I = 40, Os[5] = {37, 8, 8, 33, 1};
  std::mt19937 rng(8);
  const auto x = test::rand_vec((size_t)N * I, rng), b = test::rand_vec(37, rng);
  std::vector<std::vector<float>> W, y, want;
  std::vector<LinearOut> outs;
  for (int j = 0; j < 5; ++j) {
    W.push_back(test::rand_vec((size_t)Os[j] * I, rng));
    y.push_back(std::vector<float>((size_t)N * Os[j], NAN));
    want.push_back(y.back());
  }
  for (int j = 0; j < 5; ++j) {
    Weight w(W[j].data());
    w.bf16_products = true;
    const float* bias = j == 0 ? b.data() : nullptr;
    linear_forward(want[j].data(), x.data(), w, bias, N, I, Os[j]);
    outs.push_back({y[j].data(), w, bias, Os[j]});
  }
  linear_forward_group(outs, x.data(), N, I);
  for (int j = 0; j < 5; ++j) EXPECT_EQ(y[j], want[j]) << "output " << j;
}

}  // namespace
}  // namespace llm0
