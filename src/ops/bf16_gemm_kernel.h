// The MR × NR tiles of ops/bf16_gemm.h on packed k-pair panels: the AVX-512 BF16 kernel and the
// portable scalar one (same k order: per pair, the odd product is added before the even one, as
// the SDM's VDPBF16PS pseudo-code). Internal to bf16_gemm.cpp and its tests.
#pragma once

#include <cstdint>

#include "ops/bf16_operand.h"

namespace llm0::bf16_gemm_detail {

constexpr int MR = 8;   // rows per tile (A panel: [kp][MR][2] bf16)
constexpr int NR = kBf16PanelCols;  // columns per tile (B panel: [kp][NR][2] bf16; two zmm per k-pair)

/// c[mm, nn] (row stride ldc; mm <= MR, nn <= NR) = (acc ? c : 0) + Σ_q Σ_j a[q][m][j] · b[q][n][j]
/// over kp k-pairs. Needs AVX512_BF16 (the caller checks).
void tile_avx512bf16(float* c, long ldc, const uint16_t* a, const uint16_t* b, int kp, int mm,
                     int nn, bool acc);
/// Packs rows [r0, r0 + rows) × k [k0, k0 + kc) of X (kp = ⌈kc / 2⌉ k-pairs) as ⌈rows / P⌉
/// panels of bf16 (round to nearest even), panel p at d + p·kp·P·2 holding rows
/// [r0 + p·P, r0 + p·P + P) as [kp][P][2]; zeros for rows past r0 + rows and for k >= kc.
/// Needs AVX512_BF16 (vcvtne2ps2bf16: rounds as float_to_bf16 except
/// denormal inputs, flushed to zero as vdpbf16ps reads them).
void pack_avx512bf16(uint16_t* d, GemmOperand X, int r0, int rows, int k0, int kc, int P);
/// The same in portable C++ (float_to_bf16).
void pack_scalar(uint16_t* d, GemmOperand X, int r0, int rows, int k0, int kc, int P);
/// The same in portable C++.
void tile_scalar(float* c, long ldc, const uint16_t* a, const uint16_t* b, int kp, int mm, int nn,
                 bool acc);

}  // namespace llm0::bf16_gemm_detail
