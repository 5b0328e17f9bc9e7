// Row-independent linear map on packed panels. See linear_rows.h.
#include "ops/linear_rows.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/cpu_features.h"
#include "core/simd.h"

namespace llm0 {

namespace {
using simd::f32x16;
constexpr int P = kLinearPanel;


// One call's operands: y [N, O], x [N, I], Wp [panels][I][P], b [O] or null.
template <class T>
struct Job {
  float* y;
  const float* x;
  const T* Wp;
  const float* b;
  int N, I, O;
};

// y rows [n, n + MR) × outputs [o0, o0 + 16·NC) (inside one panel; columns past O are computed on
// the zero padding and not stored). acc[r][c] lane l is the chain of output o0 + 16c + l:
// acc = fma(x[n + r, k], Wp[k][..], acc) for k = 0, 1, …, I − 1, then + b — the element's fixed
// order, whatever MR, NC, the vector width or the caller's split.
template <int MR, int NC, class T>
[[gnu::always_inline]] inline void tile(const Job<T>& j, int n, int o0) {
  const T* w = j.Wp + (long)(o0 / P) * j.I * P + o0 % P;
  const float* x = j.x + (long)n * j.I;
  f32x16 acc[MR][NC] = {};
  for (int k = 0; k < j.I; ++k) {
    f32x16 wv[NC];
    for (int c = 0; c < NC; ++c) wv[c] = simd::load(w + (long)k * P + 16 * c);  // BF16: widened
    for (int r = 0; r < MR; ++r) {
      const f32x16 xv = x[(long)r * j.I + k] - f32x16{};  // broadcast (x − 0 = x, signed zeros too)
      for (int c = 0; c < NC; ++c) acc[r][c] += xv * wv[c];  // one fused multiply-add with FMA
    }
  }
  const int cols = std::min(16 * NC, j.O - o0);
  for (int r = 0; r < MR; ++r) {
    float out[16 * NC];
    std::memcpy(out, acc[r], sizeof out);
    float* yr = j.y + (long)(n + r) * j.O + o0;
    if (j.b)
      for (int c = 0; c < cols; ++c) yr[c] = out[c] + j.b[o0 + c];
    else
      std::memcpy(yr, out, sizeof(float) * (size_t)cols);
  }
}

// A tile of `rem` < MR + 1 rows.
template <int MR, int NC, class T>
[[gnu::always_inline]] inline void rows_tail(const Job<T>& j, int n, int rem, int o0) {
  if constexpr (MR > 0) {
    if (rem == MR) tile<MR, NC>(j, n, o0);
    else rows_tail<MR - 1, NC>(j, n, rem, o0);
  }
}

// Rows [n0, n1) × panels [p0, p1): per panel, tiles of MR rows (the panel stays in L2 while the
// tiles pass over it; a tile's x rows stay in L1 across its column groups).
template <int MR, int NC, class T>
[[gnu::always_inline]] inline void panels(const Job<T>& j, int n0, int n1, int p0, int p1) {
  for (int p = p0; p < p1; ++p) {
    const int o1 = std::min(j.O, (p + 1) * P);
    int n = n0;
    for (; n + MR <= n1; n += MR)
      for (int o = p * P; o < o1; o += 16 * NC) tile<MR, NC>(j, n, o);
    if (n < n1)
      for (int o = p * P; o < o1; o += 16 * NC) rows_tail<MR - 1, NC>(j, n, n1 - n, o);
  }
}

// One version: MR × 16·NC tiles for several rows, 1 × 16·NC1 for one row (decode: NC1 independent
// chains per k).
template <int MR, int NC, int NC1, class T>
[[gnu::always_inline]] inline void version(const Job<T>& j, int n0, int n1, int p0, int p1) {
  if (n1 - n0 == 1) panels<1, NC1>(j, n0, n1, p0, p1);
  else panels<MR, NC>(j, n0, n1, p0, p1);
}

// A build for a portable baseline compiles each version for its instruction set (the CPU chooses
// at run time); a build for this CPU (-march=native, AVX2 or more) compiles all for it (the
// always-inline code above could not inline into a narrower target).
#if defined(__x86_64__) && !defined(__AVX2__)
#define LLM0_ROWS_ISAS 1
#define LLM0_ISA_V4 __attribute__((target("arch=x86-64-v4")))
#define LLM0_ISA_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define LLM0_ROWS_ISAS 0
#define LLM0_ISA_V4
#define LLM0_ISA_V3
#endif

// Tiles (accumulator registers): AVX-512 6 rows × 64 outputs (24 of 32 zmm); AVX2 6 × 16 (12 of
// 16 ymm), one row × 64 (8 ymm); baseline SSE 3 × 16 (12 of 16 xmm), one row × 32.
#define LLM0_ROWS_VERSION(NAME, ISA, MR, NC, NC1)                                         \
  ISA void NAME##_f32(const Job<float>& j, int n0, int n1, int p0, int p1) {             \
    version<MR, NC, NC1>(j, n0, n1, p0, p1);                                              \
  }                                                                                       \
  ISA void NAME##_bf16(const Job<uint16_t>& j, int n0, int n1, int p0, int p1) {         \
    version<MR, NC, NC1>(j, n0, n1, p0, p1);                                              \
  }
LLM0_ROWS_VERSION(avx512, LLM0_ISA_V4, 6, 4, 4)
LLM0_ROWS_VERSION(avx2, LLM0_ISA_V3, 6, 1, 4)
LLM0_ROWS_VERSION(baseline, , 3, 1, 2)

struct Version {
  void (*f32)(const Job<float>&, int, int, int, int);
  void (*bf16)(const Job<uint16_t>&, int, int, int, int);
};
Version version_of(LinearRowsKernel k) {
  switch (k) {
    case LinearRowsKernel::Avx512: return {avx512_f32, avx512_bf16};
    case LinearRowsKernel::Avx2: return {avx2_f32, avx2_bf16};
    default: return {baseline_f32, baseline_bf16};
  }
}

// The version of LLM0_KERNEL's level (core/cpu_features.h) when it is set: avx512 and avx512bf16
// take the avx512 tiles, avx2 the avx2 tiles, scalar the baseline tiles.
std::optional<LinearRowsKernel> forced_by_environment() {
  const std::optional<Isa> isa = forced_isa();
  if (!isa) return std::nullopt;
  return *isa >= Isa::Avx512 ? LinearRowsKernel::Avx512
         : *isa == Isa::Avx2 ? LinearRowsKernel::Avx2 : LinearRowsKernel::Baseline;
}

LinearRowsKernel default_kernel() {
  if (const auto k = forced_by_environment()) return *k;
#if LLM0_ROWS_ISAS
  if (cpu_supports(Isa::Avx512)) return LinearRowsKernel::Avx512;
  if (cpu_supports(Isa::Avx2)) return LinearRowsKernel::Avx2;
  return LinearRowsKernel::Baseline;
#elif defined(__AVX512F__)
  return LinearRowsKernel::Avx512;
#elif defined(__AVX2__)
  return LinearRowsKernel::Avx2;
#else
  return LinearRowsKernel::Baseline;
#endif
}

std::atomic<int> g_forced{-1};  // a LinearRowsKernel forced by a test, or -1

Version chosen() {
  static const LinearRowsKernel best = default_kernel();
  const int f = g_forced.load(std::memory_order_relaxed);
  return version_of(f < 0 ? best : (LinearRowsKernel)f);
}

constexpr int kRowBlock = 72;  // x rows per pass over W: [72, I] stays in L2 beside a panel

template <class T>
void run(const Job<T>& j, void (*fn)(const Job<T>&, int, int, int, int)) {
  const int np = (j.O + P - 1) / P;
  for (int n0 = 0; n0 < j.N; n0 += kRowBlock) {
    const int n1 = std::min(j.N, n0 + kRowBlock);
    // Threads take whole panels: an element's sum never crosses threads.
#pragma omp parallel for schedule(static) if ((long)j.O * j.I > 32768 && np > 1)
    for (int p = 0; p < np; ++p) fn(j, n0, n1, p, p + 1);
  }
}
}  // namespace

void linear_packed(float* y, const float* x, const PackedLinear& W, const float* b, int N) {
  if (N <= 0) return;
  const Version v = chosen();
  if (W.bf16)
    run(Job<uint16_t>{y, x, static_cast<const uint16_t*>(W.data.get()), b, N, W.I, W.O}, v.bf16);
  else
    run(Job<float>{y, x, static_cast<const float*>(W.data.get()), b, N, W.I, W.O}, v.f32);
}

void linear_rows(float* y, const float* x, Weight W, const float* b, int N, int I, int O,
                 const PackedWeights* store) {
  if (N <= 0) return;
  if (store) return linear_packed(y, x, store->get(W, I, O), b, N);
  linear_packed(y, x, pack_linear(W, I, O), b, N);
}

std::vector<LinearRowsKernel> linear_rows_kernels() {
  std::vector<LinearRowsKernel> r{default_kernel()};
  for (LinearRowsKernel k :
       {LinearRowsKernel::Avx512, LinearRowsKernel::Avx2, LinearRowsKernel::Baseline}) {
    bool runs = !LLM0_ROWS_ISAS;
#if LLM0_ROWS_ISAS
    runs = k == LinearRowsKernel::Baseline ||
           cpu_supports(k == LinearRowsKernel::Avx2 ? Isa::Avx2 : Isa::Avx512);
#endif
    if (runs && k != r.front()) r.push_back(k);
  }
  return r;
}

bool linear_rows_fused(LinearRowsKernel k) {
#if LLM0_ROWS_ISAS
  return k != LinearRowsKernel::Baseline;
#elif defined(__FMA__)
  return true;
#else
  return false;
#endif
}

void force_linear_rows_kernel(std::optional<LinearRowsKernel> k) {
  g_forced.store(k ? (int)*k : -1, std::memory_order_relaxed);
}

}  // namespace llm0
