// The machine's sgemm ceiling: OpenBLAS cblas_sgemm GFLOP/s on a large square product, measured
// on the spot (the denominator of model FLOPs utilisation, MFU).
#pragma once

namespace llm0 {

/// Best of `repeats` timings of a [n, n] x [n, n] sgemm with the current thread setting, in
/// GFLOP/s (2·n³ FLOPs each). Takes about repeats · 2n³ / peak seconds (≈ 0.1 s at n = 1024).
/// With `cpu_time` the timings are the process's CPU time (all threads; CLOCK_PROCESS_CPUTIME_ID)
/// instead of the wall clock: GFLOP per CPU-second, which other processes sharing the cores do
/// not lower (at 1 thread it equals the wall-clock rate of an idle machine).
double measure_sgemm_gflops(int n = 1024, int repeats = 3, bool cpu_time = false);

/// Seconds of CPU time this process has used so far (all threads; CLOCK_PROCESS_CPUTIME_ID).
double process_cpu_seconds();

}  // namespace llm0
