// Row-independent linear map for the serving engine's batched forward: y = x · Wᵀ + b where every
// output is ONE scalar chain in a fixed order, y[n, o] = fma(x[n, I−1], W[o, I−1], … fma(x[n, 1],
// W[o, 1], x[n, 0] · W[o, 0]) …) + b[o] — the same whatever other rows share the call (N), the
// tile a row falls in, how outputs are split among threads, or the vector width: a token row's
// result is bitwise the same in any batch. OpenBLAS's sgemm gives no such promise (its kernel and
// thread split depend on M).
// How: W packed in panels of P outputs (ops/linear_pack.h); SIMD lanes run across the P outputs
// of a panel, x[n, k] is broadcast, and k advances in order — several independent chains per k at
// one row (decode is not bound by the FMA latency) and tiles of several rows × up to 64 outputs
// sharing each panel load (prefill approaches sgemm). W float32 or BF16 (widened in registers,
// exact; products accumulated in float32).
// Portable: GCC vector extensions. Three versions of the kernel — AVX-512 tiles (x86-64-v4),
// AVX2 + FMA tiles (x86-64-v3) and a baseline — the CPU choosing at run time; in a build for a
// portable baseline (the sanitizer build) each is compiled for its instruction set, in a
// -march=native build all three for this CPU (differing in tile shape only). The FMA versions give
// identical bits; the baseline without FMA rounds each product (still a fixed order).
// LLM0_KERNEL=scalar|avx2|avx512 (core/cpu_features.h) forces the baseline / avx2 / avx512 version.
// Layouts (row-major): x [N, I], W [O, I] (PyTorch [out_features, in_features]), b [O], y [N, O].
#pragma once

#include <optional>
#include <vector>

#include "ops/linear_pack.h"
#include "ops/weight.h"

namespace llm0 {

/// y[N, O] = x[N, I] · W[O, I]ᵀ + b[O] (b may be null), each element in the fixed order above.
/// W's panels come from `store` (packed beforehand; throws llm0::Error if it lacks them), or are
/// packed for this call when it is null. Threads split the panels (never an element's sum).
void linear_rows(float* y, const float* x, Weight W, const float* b, int N, int I, int O,
                 const PackedWeights* store = nullptr);

/// The same on panels packed beforehand: y[N, W.O] = x[N, W.I] · Wᵀ + b.
void linear_packed(float* y, const float* x, const PackedLinear& W, const float* b, int N);

/// The kernel versions (tile shapes and instruction sets, see the header).
enum class LinearRowsKernel { Avx512, Avx2, Baseline };
/// Versions this CPU can run, the one chosen by default first.
std::vector<LinearRowsKernel> linear_rows_kernels();
/// Whether a version multiplies and adds in one rounding (FMA): these give identical bits.
bool linear_rows_fused(LinearRowsKernel k);
/// Tests: run `k` (one of linear_rows_kernels()) in this process from now on; nullopt restores
/// the default. Not to be called while another thread runs linear_rows.
void force_linear_rows_kernel(std::optional<LinearRowsKernel> k);

}  // namespace llm0
