// The row-independent linear map (ops/linear_rows.h) on packed panels (ops/linear_pack.h):
// against the double-precision reference (F32 and BF16 weights, with and without bias), against
// the element's defining chain of scalar fused multiply-adds (bitwise, for the FMA versions),
// each row bitwise independent of N and of its place among the rows, every version this CPU runs
// bitwise equal to the default one (the baseline without FMA: against the reference), 1 vs 2
// threads, the packed store, and linear_forward's routing by the caller's LinearKernel. Every dimension differs:
// I not a multiple of 16, O not a multiple of the panel, N = 1, 5, 67 and 80 (past a row block).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "ops/bf16_kernels.h"
#include "ops/linear_pack.h"
#include "ops/linear_rows.h"
#include "ops/matmul.h"
#include "ops/ref/ref_matmul.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

constexpr int kI = 83, kO = 150;  // 150 = 2 panels of 64 + 22

struct Case {
  std::vector<float> x, W, b, Wr;  // Wr: the weights as the kernel sees them (BF16 rounded)
  std::vector<uint16_t> Wb;
  Weight w(bool bf16) const { return bf16 ? Weight::from_bf16(Wb.data()) : Weight(W.data()); }
};

Case make_case(int N, int I, int O, bool bf16, unsigned seed) {
  std::mt19937 rng(seed);
  Case c;
  c.x = rand_vec((size_t)N * I, rng), c.W = rand_vec((size_t)O * I, rng), c.b = rand_vec(O, rng);
  c.Wb.resize(c.W.size());
  bf16_round(c.Wb.data(), c.W.data(), (long)c.W.size());
  c.Wr = c.W;
  if (bf16)
    for (size_t i = 0; i < c.Wr.size(); ++i) c.Wr[i] = bf16_to_float(c.Wb[i]);
  return c;
}

// linear_rows reading panels from `store` (null: packed for this call).
std::vector<float> run(const Case& c, bool bf16, bool bias, int N, int I, int O,
                       const PackedWeights* store = nullptr) {
  std::vector<float> y((size_t)N * O, NAN);
  linear_rows(y.data(), c.x.data(), c.w(bf16), bias ? c.b.data() : nullptr, N, I, O, store);
  return y;
}

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * 4) == 0; }

TEST(LinearRows, MatchesTheDoubleReference) {
  for (LinearRowsKernel k : linear_rows_kernels()) {
    force_linear_rows_kernel(k);
    for (bool bf16 : {false, true})
      for (bool bias : {false, true})
        for (int N : {1, 5, 67, 80}) {
          SCOPED_TRACE(testing::Message() << "kernel " << (int)k << (bf16 ? " bf16" : " f32")
                                          << (bias ? " bias" : "") << " N=" << N);
          const Case c = make_case(N, kI, kO, bf16, 3 + N);
          const std::vector<float> y = run(c, bf16, bias, N, kI, kO);
          std::vector<double> want(y.size());
          const std::vector<double> bd = to_double(c.b);
          ref::linear_forward(want.data(), to_double(c.x).data(), to_double(c.Wr).data(),
                              bias ? bd.data() : nullptr, N, kI, kO);
          EXPECT_TRUE(all_close(y, want, 1e-5, 1e-5, "linear_rows", {N, kO}));
        }
  }
  force_linear_rows_kernel(std::nullopt);
}

// y[n, o] = fma(x[n, I−1], W[o, I−1], … fma(x[n, 0], W[o, 0], 0) …) + b[o], exactly.
TEST(LinearRows, FusedVersionsComputeTheFixedChainExactly) {
  const int N = 7;
  for (LinearRowsKernel k : linear_rows_kernels()) {
    if (!linear_rows_fused(k)) continue;
    force_linear_rows_kernel(k);
    for (bool bf16 : {false, true}) {
      SCOPED_TRACE(testing::Message() << "kernel " << (int)k << (bf16 ? " bf16" : " f32"));
      const Case c = make_case(N, kI, kO, bf16, 5);
      const std::vector<float> y = run(c, bf16, true, N, kI, kO);
      std::vector<float> want(y.size());
      for (int n = 0; n < N; ++n)
        for (int o = 0; o < kO; ++o) {
          float s = 0.0f;
          for (int i = 0; i < kI; ++i)
            s = std::fma(c.x[(size_t)n * kI + i], c.Wr[(size_t)o * kI + i], s);
          want[(size_t)n * kO + o] = s + c.b[(size_t)o];
        }
      EXPECT_TRUE(same_bits(y.data(), want.data(), y.size()));
    }
  }
  force_linear_rows_kernel(std::nullopt);
}

// Row n of an N-row call = the same row alone (N = 1) = the row inside calls of other sizes and
// offsets (each version: its single-row, full-tile and remainder-tile code paths).
TEST(LinearRows, EachRowIsBitwiseIndependentOfTheOthers) {
  const int N = 67;
  for (LinearRowsKernel k : linear_rows_kernels()) {
    force_linear_rows_kernel(k);
    for (bool bf16 : {false, true}) {
      SCOPED_TRACE(testing::Message() << "kernel " << (int)k << (bf16 ? " bf16" : " f32"));
      const Case c = make_case(N, kI, kO, bf16, 7);
      const std::vector<float> y = run(c, bf16, true, N, kI, kO);
      for (int n0 : {0, 1, 6, 31, 66})
        for (int rows : {1, 2, 5, 6, 7, 13}) {
          if (n0 + rows > N) continue;
          std::vector<float> part((size_t)rows * kO);
          linear_rows(part.data(), c.x.data() + (long)n0 * kI, c.w(bf16), c.b.data(), rows, kI, kO);
          EXPECT_TRUE(same_bits(part.data(), y.data() + (long)n0 * kO, part.size()))
              << "rows [" << n0 << ", " << n0 + rows << ")";
        }
    }
  }
  force_linear_rows_kernel(std::nullopt);
}

// Every FMA version (AVX-512 tiles, AVX2 tiles; in a -march=native build: the tile shapes) gives
// the default version's bits; 2 threads the bits of 1.
TEST(LinearRows, VersionsAndThreadsGiveTheSameBits) {
  const std::vector<LinearRowsKernel> ks = linear_rows_kernels();
  for (bool bf16 : {false, true})
    for (int N : {1, 5, 67}) {
      SCOPED_TRACE(testing::Message() << (bf16 ? "bf16" : "f32") << " N=" << N);
      const int I = 300, O = 1100;  // big enough for the threaded split
      const Case c = make_case(N, I, O, bf16, 9);
      const int threads = omp_get_max_threads();
      omp_set_num_threads(1);
      const std::vector<float> base = run(c, bf16, true, N, I, O);
      omp_set_num_threads(2);
      EXPECT_TRUE(same_bits(run(c, bf16, true, N, I, O).data(), base.data(), base.size()));
      for (LinearRowsKernel k : ks) {
        if (k == ks.front() || !linear_rows_fused(k) || !linear_rows_fused(ks.front())) continue;
        force_linear_rows_kernel(k);
        EXPECT_TRUE(same_bits(run(c, bf16, true, N, I, O).data(), base.data(), base.size()))
            << "kernel " << (int)k;
        force_linear_rows_kernel(std::nullopt);
      }
      omp_set_num_threads(threads);
    }
}

// The model's store: packed once per matrix and shape, the same bits as packing per call; a map it
// was not built with is refused by name, not packed.
TEST(LinearRows, PackedStoreGivesTheSameBitsAndPacksOnce) {
  const int N = 5;
  const Case c = make_case(N, kI, kO, false, 13);
  const std::vector<float> direct = run(c, false, true, N, kI, kO);
  const LinearMap maps[] = {{c.w(false), kI, kO},
                            {c.w(true), kI, kO},    // the BF16 copy: a second matrix
                            {c.w(false), kI, 100},  // the first 100 rows as another shape: a third
                            {c.w(false), kI, kO}};  // listed twice: packed once
  const PackedWeights store(maps);
  for (int rep = 0; rep < 2; ++rep)
    EXPECT_TRUE(same_bits(run(c, false, true, N, kI, kO, &store).data(), direct.data(),
                          direct.size()));
  const std::vector<float> first = run(c, false, true, N, kI, 100);
  EXPECT_TRUE(same_bits(run(c, false, true, N, kI, 100, &store).data(), first.data(), first.size()));
  EXPECT_EQ(store.size(), 3u);
  EXPECT_THROW(run(c, false, true, N, kI, 99, &store), Error);  // a shape it does not hold
  EXPECT_THROW(run(make_case(N, kI, kO, false, 14), false, true, N, kI, kO, &store), Error);
  const size_t panels = (size_t)(kO + kLinearPanel - 1) / kLinearPanel;
  EXPECT_EQ(store.bytes(), panels * kI * kLinearPanel * (4 + 2) + 2 * kI * kLinearPanel * 4);
  const PackedLinear& p = store.get(Weight(c.W.data()), kI, kO);
  const float* d = static_cast<const float*>(p.data.get());
  // Panel 1, input 2, lane 3 = W[64 + 3, 2]; the padding past O is zero.
  EXPECT_EQ(d[((size_t)1 * kI + 2) * kLinearPanel + 3], c.W[(size_t)(64 + 3) * kI + 2]);
  EXPECT_EQ(d[((size_t)2 * kI + 5) * kLinearPanel + (kO - 128)], 0.0f);
  EXPECT_THROW(pack_linear(Weight(), 3, 4), Error);
  const LinearMap empty{Weight(c.W.data()), kI, 0};
  EXPECT_THROW(PackedWeights(std::span<const LinearMap>(&empty, 1)), Error);
}

// The store's copies lie one after another in the order of its list (64-byte aligned) from a
// 2 MiB aligned chunk of huge pages; a matrix larger than a chunk (32 MiB) gets a fresh chunk of
// whole 2 MiB pages, whose rest the next copies fill.
TEST(LinearRows, PackedStoreLaysCopiesOutInListOrder) {
  const int I = 37, O = 70, BigI = 4096, BigO = 2100;  // big: 4096 · 2112 · 4 bytes > 32 MiB
  std::vector<float> a((size_t)I * O, 0.5f), b((size_t)I * O, 0.25f), big((size_t)BigI * BigO, 1.0f);
  const LinearMap maps[] = {{Weight(a.data()), I, O}, {Weight(b.data()), I, O},
                            {Weight(big.data()), BigI, BigO}, {Weight(a.data()), I, 60}};
  const PackedWeights store(maps);
  const auto addr = [](const PackedLinear& p) { return reinterpret_cast<uintptr_t>(p.data.get()); };
  const uintptr_t pa = addr(store.get(Weight(a.data()), I, O));
  const uintptr_t pb = addr(store.get(Weight(b.data()), I, O));
  const size_t one = (size_t)2 * I * kLinearPanel * 4;  // 2 panels of 37 × 64 floats
  EXPECT_EQ(pa % ((size_t)2 << 20), 0u);
  EXPECT_EQ(pb, pa + (one + 63) / 64 * 64);
  const uintptr_t pbig = addr(store.get(Weight(big.data()), BigI, BigO));
  EXPECT_EQ(pbig % ((size_t)2 << 20), 0u);
  EXPECT_TRUE(pbig + store.get(Weight(big.data()), BigI, BigO).bytes() <= pa ||
              pbig >= pa + ((size_t)32 << 20));
  const size_t big_bytes = store.get(Weight(big.data()), BigI, BigO).bytes();
  EXPECT_EQ(addr(store.get(Weight(a.data()), I, 60)), pbig + (big_bytes + 63) / 64 * 64);
  EXPECT_EQ(store.get(Weight(a.data()), I, O).data.get(), reinterpret_cast<void*>(pa));  // found again
  // The packed values are right wherever they lie: y = W x through the store vs without.
  std::vector<float> x((size_t)BigI, 0.001f), y1((size_t)BigO), y2((size_t)BigO);
  linear_rows(y1.data(), x.data(), Weight(big.data()), nullptr, 1, BigI, BigO);
  linear_rows(y2.data(), x.data(), Weight(big.data()), nullptr, 1, BigI, BigO, &store);
  EXPECT_EQ(y1, y2);
  EXPECT_EQ(store.size(), 4u);
}

// A LinearKernel with fixed_order routes linear_forward (N rows and N = 1) and
// linear_forward_group through linear_rows, from the kernel's panels when it names a store.
TEST(LinearRows, FixedOrderKernelRoutesLinearForward) {
  const int N = 9;
  for (bool bf16 : {false, true}) {
    const Case c = make_case(N, kI, kO, bf16, 17);
    const std::vector<float> y = run(c, bf16, true, N, kI, kO);
    const LinearMap map{c.w(bf16), kI, kO};
    const PackedWeights store(std::span<const LinearMap>(&map, 1));
    for (const LinearKernel k : {LinearKernel{true, nullptr}, LinearKernel{true, &store}}) {
      std::vector<float> via(y.size());
      linear_forward(via.data(), c.x.data(), c.w(bf16), c.b.data(), N, kI, kO, k);
      EXPECT_TRUE(same_bits(via.data(), y.data(), y.size()));
      linear_forward(via.data(), c.x.data() + 4 * kI, c.w(bf16), c.b.data(), 1, kI, kO, k);
      EXPECT_TRUE(same_bits(via.data(), y.data() + 4 * kO, kO));
      const LinearOut one[] = {{via.data(), c.w(bf16), c.b.data(), kO}};
      linear_forward_group(one, c.x.data() + 4 * kI, 1, kI, k);
      EXPECT_TRUE(same_bits(via.data(), y.data() + 4 * kO, kO));
    }
    std::vector<float> out((size_t)kO);  // a store without the matrix: refused, never packed
    const PackedWeights other;
    EXPECT_THROW(linear_forward(out.data(), c.x.data(), c.w(bf16), nullptr, 1, kI, kO,
                                LinearKernel{true, &other}), Error);
  }
}

}  // namespace
}  // namespace llm0
