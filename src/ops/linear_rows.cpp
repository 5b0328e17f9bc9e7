// Row-independent linear map. See linear_rows.h.
#include "ops/linear_rows.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/simd.h"

namespace llm0 {

namespace {
using simd::f32x16;
using u16x16 = uint16_t __attribute__((vector_size(32)));
using u32x16 = uint32_t __attribute__((vector_size(64)));

thread_local bool t_row_independent = false;

// 16 weights as float32: loaded, or BF16 bits widened (exact: the bits move to the high half).
inline f32x16 load_w(const float* p) { return simd::load(p); }
inline f32x16 load_w(const uint16_t* p) {
  u16x16 h;
  std::memcpy(&h, p, sizeof h);
  const u32x16 u = __builtin_convertvector(h, u32x16) << 16;
  f32x16 f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline float widen(float v) { return v; }
inline float widen(uint16_t b) { return std::bit_cast<float>((uint32_t)b << 16); }

// Keeps a loaded vector in a register for its uses: GCC otherwise reloads w and x for every
// multiply-add (two loads per FMA, half the FMA rate). One AVX-512 register holds 16 floats;
// without AVX-512 the hint is left out.
inline void in_register(f32x16& v) {
#if defined(__AVX512F__)
  asm("" : "+v"(v));
#else
  (void)v;
#endif
}

// y[n0 .. n0 + NX, o0 .. o0 + NW): NX x rows × NW W rows sharing their loads, each W row read
// front to back. Each element's order: one 16-lane accumulator over the 16-number blocks in
// order, simd::sum's tree, then the last I mod 16 products in order — whatever NX and NW, so a
// row's value does not depend on its tile.
template <int NX, int NW, class T>
__attribute__((always_inline)) inline void tile(float* y, const float* x, const T* W,
                                                const float* b, int I, int O, int n0, int o0) {
  constexpr int L = simd::kWidth;
  f32x16 acc[NX][NW] = {};
  const float* xr = x + (long)n0 * I;
  const T* wr = W + (long)o0 * I;
  int i = 0;
  for (; i + L <= I; i += L) {
    f32x16 w[NW];
    for (int c = 0; c < NW; ++c) {
      w[c] = load_w(wr + (long)c * I + i);
      in_register(w[c]);
    }
    for (int r = 0; r < NX; ++r) {
      f32x16 xv = simd::load(xr + (long)r * I + i);
      in_register(xv);
      for (int c = 0; c < NW; ++c) acc[r][c] += w[c] * xv;
    }
  }
  for (int r = 0; r < NX; ++r)
    for (int c = 0; c < NW; ++c) {
      float s = simd::sum(acc[r][c]);
      for (int k = i; k < I; ++k) s = std::fma(widen(wr[(long)c * I + k]), xr[(long)r * I + k], s);
      y[(long)(n0 + r) * O + o0 + c] = s + (b ? b[o0 + c] : 0.0f);
    }
}

// Rows [n0, n1) × W rows [o0, o1). A build for a baseline without AVX2 (portable, the
// sanitizer build) compiles it three times — AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) and the
// baseline — and the CPU chooses at run time (GCC function multi-versioning); a build for a CPU
// with AVX2 or more (-march=native) already has its best (and clones could not inline core/simd.h,
// whose target is then wider than x86-64-v4). One process runs one version.
#if defined(__AVX2__)
#define LLM0_ROWS_VERSIONS
#else
#define LLM0_ROWS_VERSIONS __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
constexpr int kTile = 4;  // x rows and W rows per tile

template <int NW, class T>
__attribute__((always_inline)) inline void x_tiles(float* y, const float* x, const T* W,
                                                   const float* b, int n0, int n1, int I, int O,
                                                   int o) {
  int n = n0;
  for (; n + kTile <= n1; n += kTile) tile<kTile, NW>(y, x, W, b, I, O, n, o);
  switch (n1 - n) {
    case 3: tile<3, NW>(y, x, W, b, I, O, n, o); break;
    case 2: tile<2, NW>(y, x, W, b, I, O, n, o); break;
    case 1: tile<1, NW>(y, x, W, b, I, O, n, o); break;
    default: break;
  }
}

// One x row: each W row alone, one sequential stream (decode's access, as fast as matvec; four
// interleaved row streams measured 1.6x slower). More rows: tiles of 4 x rows × 4 W rows (16
// accumulators, half a load per multiply-add), so x is read once per four W rows.
template <class T>
__attribute__((always_inline)) inline void w_rows(float* y, const float* x, const T* W,
                                                  const float* b, int n0, int n1, int I, int O,
                                                  int o0, int o1) {
  if (n1 - n0 == 1) {
    for (int o = o0; o < o1; ++o) tile<1, 1>(y, x, W, b, I, O, n0, o);
    return;
  }
  int o = o0;
  for (; o + kTile <= o1; o += kTile) x_tiles<kTile>(y, x, W, b, n0, n1, I, O, o);
  switch (o1 - o) {
    case 3: x_tiles<3>(y, x, W, b, n0, n1, I, O, o); break;
    case 2: x_tiles<2>(y, x, W, b, n0, n1, I, O, o); break;
    case 1: x_tiles<1>(y, x, W, b, n0, n1, I, O, o); break;
    default: break;
  }
}
LLM0_ROWS_VERSIONS
void w_rows_f32(float* y, const float* x, const float* W, const float* b, int n0, int n1, int I,
                int O, int o0, int o1) {
  w_rows(y, x, W, b, n0, n1, I, O, o0, o1);
}
LLM0_ROWS_VERSIONS
void w_rows_bf16(float* y, const float* x, const uint16_t* W, const float* b, int n0, int n1,
                 int I, int O, int o0, int o1) {
  w_rows(y, x, W, b, n0, n1, I, O, o0, o1);
}
inline void w_rows_any(float* y, const float* x, const float* W, const float* b, int n0, int n1,
                       int I, int O, int o0, int o1) {
  w_rows_f32(y, x, W, b, n0, n1, I, O, o0, o1);
}
inline void w_rows_any(float* y, const float* x, const uint16_t* W, const float* b, int n0,
                       int n1, int I, int O, int o0, int o1) {
  w_rows_bf16(y, x, W, b, n0, n1, I, O, o0, o1);
}

constexpr int kRowBlock = 64;  // x rows per pass over W: [64, I] stays in L2 while W streams

constexpr int kRowsPerTask = 16;  // W rows per thread task

template <class T>
void run(float* y, const float* x, const T* W, const float* b, int N, int I, int O) {
  const int tasks = (O + kRowsPerTask - 1) / kRowsPerTask;
  for (int n0 = 0; n0 < N; n0 += kRowBlock) {
    const int n1 = std::min(N, n0 + kRowBlock);
    // Threads take whole W rows: an element's sum never crosses threads.
#pragma omp parallel for schedule(static) if ((long)O * I > 32768 && tasks > 1)
    for (int t = 0; t < tasks; ++t)
      w_rows_any(y, x, W, b, n0, n1, I, O, t * kRowsPerTask, std::min(O, (t + 1) * kRowsPerTask));
  }
}
}  // namespace

void linear_rows(float* y, const float* x, Weight W, const float* b, int N, int I, int O) {
  if (W.bf16) return run(y, x, W.bf16, b, N, I, O);
  run(y, x, W.f32, b, N, I, O);
}

RowIndependentLinear::RowIndependentLinear() : previous_(t_row_independent) {
  t_row_independent = true;
}
RowIndependentLinear::~RowIndependentLinear() { t_row_independent = previous_; }

bool row_independent_linear() { return t_row_independent; }

}  // namespace llm0
