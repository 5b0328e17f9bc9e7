// Threads: one setting for OpenMP loops and OpenBLAS (Debian's OpenMP build shares the pool).
#pragma once

namespace llm0 {
/// The most threads `--threads` accepts: more would only oversubscribe the machine (OpenMP
/// starts every one of them), and 100,000 of them exhaust the process's thread limit.
inline constexpr int kMaxThreads = 1024;
/// Sets the number of threads for our OpenMP loops and for OpenBLAS. n == 0 means all cores.
/// Throws llm0::Error naming --threads if n is negative or over kMaxThreads.
void set_num_threads(int n);
/// Sets OpenMP's thread count for the calling thread only, leaving OpenBLAS's process-wide
/// setting alone: OpenMP's nthreads-var is per thread (threads started outside OpenMP, such as
/// HTTP handler threads, begin with OpenMP's default, all cores), and OpenBLAS's OpenMP build
/// follows the calling thread's count at each call. Safe to call from many threads at once,
/// unlike set_num_threads (openblas_set_num_threads resizes shared buffers). n as set_num_threads.
void adopt_num_threads(int n);
/// Threads currently used by OpenMP loops.
int num_threads();
}  // namespace llm0
