// The machine's sgemm ceiling: OpenBLAS cblas_sgemm GFLOP/s on a large square product, measured
// on the spot (the denominator of model FLOPs utilisation, MFU).
#pragma once

namespace llm0 {

/// Best of `repeats` timings of a [n, n] x [n, n] sgemm with the current thread setting, in
/// GFLOP/s (2·n³ FLOPs each). Takes about repeats · 2n³ / peak seconds (≈ 0.1 s at n = 1024).
double measure_sgemm_gflops(int n = 1024, int repeats = 3);

}  // namespace llm0
