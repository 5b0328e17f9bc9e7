// Threads: one setting for OpenMP loops and OpenBLAS (Debian's OpenMP build shares the pool).
#pragma once

namespace llm0 {
/// Sets the number of threads for our OpenMP loops and for OpenBLAS. n <= 0 means all cores.
/// Throws llm0::Error if n is negative.
void set_num_threads(int n);
/// Threads currently used by OpenMP loops.
int num_threads();
}  // namespace llm0
