// Helpers of the A/B benchmarks that time in CPU seconds (bench_attention_train,
// bench_train_precision_ab): at one thread a process's CPU time does not grow while other jobs
// take turns on the core, so samples taken on a shared machine stay comparable.
#pragma once
#include <algorithm>
#include <ctime>
#include <vector>

namespace llm0::bench {

/// CPU seconds this process has used (all its threads).
inline double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/// The median (upper one for an even count) of v; v non-empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds of step(false) and step(true) (f32 and bf16), `pairs` pairs back to back, the order
/// flipped every pair so that a load change falls on both; ratio = f32 / bf16 per pair.
struct PairedSamples {
  std::vector<double> f32, bf16, ratio;
};
template <class Step>
PairedSamples alternate(int pairs, Step step) {
  PairedSamples s;
  for (int p = 0; p < pairs; ++p) {
    double a, b;
    if (p % 2) b = step(true), a = step(false);
    else a = step(false), b = step(true);
    s.f32.push_back(a), s.bf16.push_back(b), s.ratio.push_back(a / b);
  }
  return s;
}

}  // namespace llm0::bench
