// Threads: one setting for OpenMP loops and OpenBLAS (Debian's OpenMP build shares the pool).
#pragma once

namespace llm0 {
/// The most threads `--threads` accepts: more would only oversubscribe the machine (OpenMP
/// starts every one of them), and 100,000 of them exhaust the process's thread limit.
inline constexpr int kMaxThreads = 1024;
/// Sets the number of threads for our OpenMP loops and for OpenBLAS. n == 0 means all cores.
/// Throws llm0::Error naming --threads if n is negative or over kMaxThreads.
void set_num_threads(int n);
/// Threads currently used by OpenMP loops.
int num_threads();
}  // namespace llm0
