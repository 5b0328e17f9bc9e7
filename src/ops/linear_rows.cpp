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

constexpr int kTile = 4;  // x rows and W rows per tile

// y[n0 .. n0 + NX, o0 .. o0 + NW): the tile's NX·NW sums share each W and x load. Every element's
// order is the one of the file header, whatever NX and NW.
template <int NX, int NW, class T>
__attribute__((always_inline)) inline void tile(float* y, const float* x, const T* W,
                                                const float* b, int I, int O, int n0, int o0) {
  f32x16 acc[NX][NW] = {};
  const int I16 = I / simd::kWidth * simd::kWidth;
  const float* xr = x + (long)n0 * I;
  const T* wr = W + (long)o0 * I;
  for (int i = 0; i < I16; i += simd::kWidth) {
    f32x16 w[NW];
    for (int c = 0; c < NW; ++c) w[c] = load_w(wr + (long)c * I + i);
    for (int r = 0; r < NX; ++r) {
      const f32x16 xv = simd::load(xr + (long)r * I + i);
      for (int c = 0; c < NW; ++c) acc[r][c] += w[c] * xv;
    }
  }
  for (int r = 0; r < NX; ++r)
    for (int c = 0; c < NW; ++c) {
      float s = simd::sum(acc[r][c]);
      for (int i = I16; i < I; ++i) s = std::fma(widen(wr[(long)c * I + i]), xr[(long)r * I + i], s);
      y[(long)(n0 + r) * O + o0 + c] = s + (b ? b[o0 + c] : 0.0f);
    }
}

template <int NW, class T>
__attribute__((always_inline)) inline void rows_of(float* y, const float* x, const T* W,
                                                   const float* b, int n0, int n1, int I, int O,
                                                   int o0) {
  int n = n0;
  for (; n + kTile <= n1; n += kTile) tile<kTile, NW>(y, x, W, b, I, O, n, o0);
  switch (n1 - n) {
    case 3: tile<3, NW>(y, x, W, b, I, O, n, o0); break;
    case 2: tile<2, NW>(y, x, W, b, I, O, n, o0); break;
    case 1: tile<1, NW>(y, x, W, b, I, O, n, o0); break;
    default: break;
  }
}

// Rows [n0, n1) × the W tile at o0 (nw rows). A build for a baseline without AVX2 (portable, the
// sanitizer build) compiles it three times — AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) and the
// baseline — and the CPU chooses at run time (GCC function multi-versioning); a build for a CPU
// with AVX2 or more (-march=native) already has its best (and clones could not inline core/simd.h,
// whose target is then wider than x86-64-v4). One process runs one version.
#if defined(__AVX2__)
#define LLM0_ROWS_VERSIONS
#else
#define LLM0_ROWS_VERSIONS __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
template <class T>
__attribute__((always_inline)) inline void w_tile(float* y, const float* x, const T* W,
                                                  const float* b, int n0, int n1, int I, int O,
                                                  int o0, int nw) {
  switch (nw) {
    case 4: return rows_of<4>(y, x, W, b, n0, n1, I, O, o0);
    case 3: return rows_of<3>(y, x, W, b, n0, n1, I, O, o0);
    case 2: return rows_of<2>(y, x, W, b, n0, n1, I, O, o0);
    default: return rows_of<1>(y, x, W, b, n0, n1, I, O, o0);
  }
}
LLM0_ROWS_VERSIONS
void w_tile_f32(float* y, const float* x, const float* W, const float* b, int n0, int n1, int I,
                int O, int o0, int nw) {
  w_tile(y, x, W, b, n0, n1, I, O, o0, nw);
}
LLM0_ROWS_VERSIONS
void w_tile_bf16(float* y, const float* x, const uint16_t* W, const float* b, int n0, int n1,
                 int I, int O, int o0, int nw) {
  w_tile(y, x, W, b, n0, n1, I, O, o0, nw);
}
inline void w_tile_any(float* y, const float* x, const float* W, const float* b, int n0, int n1,
                       int I, int O, int o0, int nw) {
  w_tile_f32(y, x, W, b, n0, n1, I, O, o0, nw);
}
inline void w_tile_any(float* y, const float* x, const uint16_t* W, const float* b, int n0,
                       int n1, int I, int O, int o0, int nw) {
  w_tile_bf16(y, x, W, b, n0, n1, I, O, o0, nw);
}

constexpr int kRowBlock = 64;  // x rows per pass over W: [64, I] stays in L2 while W streams

template <class T>
void run(float* y, const float* x, const T* W, const float* b, int N, int I, int O) {
  const int tiles = (O + kTile - 1) / kTile;
  for (int n0 = 0; n0 < N; n0 += kRowBlock) {
    const int n1 = std::min(N, n0 + kRowBlock);
    // Threads take whole W tiles: an element's sum never crosses threads.
#pragma omp parallel for schedule(static) if ((long)O * I > 32768 && tiles > 1)
    for (int t = 0; t < tiles; ++t)
      w_tile_any(y, x, W, b, n0, n1, I, O, t * kTile, std::min(kTile, O - t * kTile));
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
