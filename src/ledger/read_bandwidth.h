// The machine's memory-read bandwidth: the bound on decode speed, since every weight is read
// once per generated token (tokens/s <= bytes/s ÷ weight bytes).
#pragma once

namespace llm0 {

/// Best of `repeats` timed passes over a 256 MiB float array (far beyond the caches; allocated
/// like the weights, on transparent huge pages, see aligned_zeros), summed
/// with 64 independent accumulators per thread so the adds never limit the read, using the
/// current thread setting. Returns bytes per second.
double measure_read_bandwidth(int repeats = 5);

}  // namespace llm0
