// BF16 weight kernels (ops/bf16_kernels, and the BF16 paths of matvec / linear_forward): every
// kernel this CPU can run against a double-precision sum of the same bf16 weights, within the
// bound bf16_kernels.h documents; sizes that are not multiples of 8/16/32/64 (every tail); the
// widening is bit-exact; LLM0_KERNEL forces a kernel (ctest runs this file once per value).
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "core/threads.h"
#include "ops/bf16_kernels.h"
#include "ops/matmul.h"
#include "test_util.h"

namespace llm0 {
namespace {

constexpr Isa kKernels[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512,
                                   Isa::Avx512Bf16};

std::vector<uint16_t> rand_bf16(size_t n, std::mt19937& rng) {
  const auto v = test::rand_vec(n, rng);
  std::vector<uint16_t> b(n);
  bf16_round(b.data(), v.data(), (long)n);
  return b;
}

// The documented bound of bf16_kernels.h for Σ|w x| = `mass` over I terms.
double bound(Isa k, int I, double mass) {
  const double acc = I * std::ldexp(1.0, -24);
  return (k == Isa::Avx512Bf16 ? std::ldexp(1.0, -16) + acc : acc) * mass + 1e-30;
}

// Restores the kernel chosen at start-up when a test ends.
struct KernelGuard {
  Isa saved = bf16_kernel();
  ~KernelGuard() { set_bf16_kernel(saved); }
};

const int kSizes[] = {1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 257, 1001};

TEST(OpsBf16Kernels, DotWithinTheDocumentedBoundForEveryKernelAndTail) {
  KernelGuard guard;
  int ran = 0;
  for (Isa k : kKernels) {
    if (!bf16_kernel_supported(k)) continue;
    ++ran;
    std::mt19937 rng(11);
    for (int I : kSizes) {
      SCOPED_TRACE(format("kernel={} I={}", isa_name(k), I));
      const auto w = rand_bf16((size_t)I, rng);
      const auto x = test::rand_vec((size_t)I, rng, -3.0f, 3.0f);
      double want = 0, mass = 0;
      for (int i = 0; i < I; ++i) {
        const double p = (double)bf16_to_float(w[(size_t)i]) * x[(size_t)i];
        want += p, mass += std::fabs(p);
      }
      Bf16Operand op;
      op.prepare(x.data(), I, k);
      const double got = bf16_dot(w.data(), op);
      EXPECT_LE(std::fabs(got - want), bound(k, I, mass)) << "got " << got << " want " << want;
    }
  }
  EXPECT_GE(ran, 1);
  std::printf("BF16 kernels run here:");
  for (Isa k : kKernels)
    if (bf16_kernel_supported(k)) std::printf(" %s", isa_name(k));
  std::printf("\n");
}

// The attention kernels over BF16 rows given by pointers (rows scattered, an offset into each):
// q·k per row within the widening bound, and the weighted sum of rows within n · 2^-24 · Σ|p v|,
// for D / Dv with every tail (not multiples of 8/16/64) and every kernel this CPU runs.
TEST(OpsBf16Kernels, AttentionRowKernelsWithinTheirBounds) {
  for (Isa k : kKernels) {
    if (!bf16_kernel_supported(k)) continue;
    std::mt19937 rng(19);
    for (int n : {1, 5, 40})
      for (int D : {7, 16, 33, 64, 101, 136}) {
        SCOPED_TRACE(format("kernel={} n={} D={}", isa_name(k), n, D));
        const long off = 3, width = D + 5;
        const auto store = rand_bf16((size_t)(n * 2 * width), rng);
        std::vector<const uint16_t*> rows((size_t)n);
        for (int j = 0; j < n; ++j) rows[(size_t)j] = store.data() + (long)((j * 7) % n) * 2 * width;
        const auto q = test::rand_vec((size_t)D, rng, -3.0f, 3.0f);
        const auto p = test::rand_vec((size_t)n, rng, 0.0f, 1.0f);
        std::vector<float> s((size_t)n, NAN), out((size_t)D, NAN);
        bf16_dot_rows(s.data(), rows.data(), off, n, q.data(), D, k);
        bf16_weighted_rows(out.data(), p.data(), rows.data(), off, n, D, k);
        for (int j = 0; j < n; ++j) {
          double want = 0, mass = 0;
          for (int i = 0; i < D; ++i) {
            const double t = (double)bf16_to_float(rows[(size_t)j][off + i]) * q[(size_t)i];
            want += t, mass += std::fabs(t);
          }
          EXPECT_LE(std::fabs(s[(size_t)j] - want), bound(Isa::Scalar, D, mass)) << "row " << j;
        }
        for (int c = 0; c < D; ++c) {
          double want = 0, mass = 0;
          for (int j = 0; j < n; ++j) {
            const double t = (double)p[(size_t)j] * bf16_to_float(rows[(size_t)j][off + c]);
            want += t, mass += std::fabs(t);
          }
          EXPECT_LE(std::fabs(out[(size_t)c] - want), bound(Isa::Scalar, n + 1, mass)) << "col " << c;
        }
      }
  }
}

TEST(OpsBf16Kernels, SplitOperandIsTheFloatToSixteenBits) {
  // hi + lo of the avx512bf16 operand reproduces x within 2^-16 relative (the bound's first term).
  std::mt19937 rng(3);
  const auto x = test::rand_vec(301, rng, -100.0f, 100.0f);
  Bf16Operand op;
  op.prepare(x.data(), 301, Isa::Avx512Bf16);
  for (size_t i = 0; i < x.size(); ++i) {
    const double back = (double)bf16_to_float(op.hi[i]) + bf16_to_float(op.lo[i]);
    EXPECT_LE(std::fabs(back - x[i]), std::ldexp(std::fabs(x[i]), -16)) << i;
  }
}

TEST(OpsBf16Kernels, WideningIsBitExact) {
  KernelGuard guard;
  std::mt19937 rng(5);
  std::vector<uint16_t> src(1001);
  for (auto& b : src) b = (uint16_t)(rng() & 0xffff);
  for (Isa k : kKernels) {
    if (!bf16_kernel_supported(k)) continue;
    for (long n : {1L, 7L, 17L, 1001L}) {
      std::vector<float> dst((size_t)n);
      bf16_widen(dst.data(), src.data(), n, k);
      for (long i = 0; i < n; ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(dst[(size_t)i]), (uint32_t)src[(size_t)i] << 16)
            << isa_name(k) << " n=" << n << " i=" << i;
    }
  }
}

// linear_forward with a BF16 W equals the double product of the widened W, for decode (N = 1),
// the small-N matvec path and the panel + sgemm path, with and without bias, at 1 and 2 threads.
TEST(OpsBf16Kernels, LinearForwardMatchesTheWidenedProduct) {
  KernelGuard guard;
  for (Isa k : kKernels) {
    if (!bf16_kernel_supported(k)) continue;
    set_bf16_kernel(k);
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      std::mt19937 rng(17);
      for (int N : {1, 3, 5, 37})
        for (auto [O, I] : {std::pair{3, 65}, std::pair{300, 97}, std::pair{41, 1001}}) {
          SCOPED_TRACE(format("kernel={} threads={} N={} O={} I={}", isa_name(k), threads,
                              N, O, I));
          const auto W = rand_bf16((size_t)O * I, rng);
          const auto x = test::rand_vec((size_t)N * I, rng), b = test::rand_vec((size_t)O, rng);
          const bool bias = (N + O) % 2 == 1;
          std::vector<float> y((size_t)N * O, std::numeric_limits<float>::quiet_NaN());
          linear_forward(y.data(), x.data(), Weight::from_bf16(W.data()), bias ? b.data() : nullptr,
                         N, I, O);
          for (int n = 0; n < N; ++n)
            for (int o = 0; o < O; ++o) {
              double want = bias ? b[(size_t)o] : 0.0, mass = std::fabs(want);
              for (int i = 0; i < I; ++i) {
                const double p = (double)bf16_to_float(W[(size_t)o * I + i]) * x[(size_t)n * I + i];
                want += p, mass += std::fabs(p);
              }
              // sgemm's own float32 blocking: the same I·2^-24 accumulation bound
              ASSERT_LE(std::fabs(y[(size_t)n * O + o] - want), bound(k, I + 1, mass) + 1e-6 * mass)
                  << "n=" << n << " o=" << o;
            }
        }
    }
  }
  set_num_threads(1);
}

TEST(OpsBf16Kernels, UnsupportedKernelIsRefusedByName) {
  for (Isa k : kKernels)
    if (!bf16_kernel_supported(k)) {
      try {
        set_bf16_kernel(k);
        ADD_FAILURE() << "no error for " << isa_name(k);
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(isa_name(k)), std::string::npos) << e.what();
      }
    }
}

// ctest runs this once per LLM0_KERNEL value: the variable decides the kernel (or, for one
// this CPU lacks, gives an error naming it).
TEST(OpsBf16KernelsEnv, EnvironmentForcesTheKernel) {
  const char* env = std::getenv("LLM0_KERNEL");
  if (!env) GTEST_SKIP() << "LLM0_KERNEL not set";
  for (Isa k : kKernels)
    if (std::string(env) == isa_name(k)) {
      if (bf16_kernel_supported(k)) {
        EXPECT_EQ(bf16_kernel(), k);
        std::mt19937 rng(23);  // and a decode product through it, I = 333 (every tail)
        const int O = 5, I = 333;
        const auto W = rand_bf16((size_t)O * I, rng);
        const auto x = test::rand_vec((size_t)I, rng);
        std::vector<float> y((size_t)O);
        linear_forward(y.data(), x.data(), Weight::from_bf16(W.data()), nullptr, 1, I, O);
        for (int o = 0; o < O; ++o) {
          double want = 0, mass = 0;
          for (int i = 0; i < I; ++i) {
            const double p = (double)bf16_to_float(W[(size_t)o * I + i]) * x[(size_t)i];
            want += p, mass += std::fabs(p);
          }
          EXPECT_LE(std::fabs(y[(size_t)o] - want), bound(k, I, mass)) << o;
        }
      } else {
        EXPECT_THROW(bf16_kernel(), Error);
      }
      return;
    }
  EXPECT_THROW(bf16_kernel(), Error);
}

}  // namespace
}  // namespace llm0
