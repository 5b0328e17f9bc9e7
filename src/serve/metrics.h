// Metrics of `llm0 serve`, rendered as Prometheus text (exposition format 0.0.4,
// https://prometheus.io/docs/instrumenting/exposition_formats/) at GET /metrics. Counters only
// grow; gauges are set by the scheduler after each step; histograms count observations per
// cumulative bucket (le = upper bound) with _sum and _count. Thread-safe.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace llm0::serve {

/// A Prometheus histogram with fixed upper bounds (the +Inf bucket is implied).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double x);
  /// "# TYPE name histogram" and its _bucket / _sum / _count lines.
  std::string render(const std::string& name, const std::string& help) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // [bounds + 1] non-cumulative; the last is (bound_max, +Inf)
  double sum_ = 0;
  uint64_t count_ = 0;
};

/// How a request ended (the label of llm0_requests_total).
enum class Outcome { stop, length, cancelled, rejected, error };

struct Metrics {
  Metrics();
  std::atomic<uint64_t> requests[5] = {};          // by Outcome
  std::atomic<uint64_t> prompt_tokens{0};          // prompt tokens of admitted requests
  std::atomic<uint64_t> generation_tokens{0};      // tokens sampled
  std::atomic<uint64_t> prefix_cache_hit_tokens{0};// prompt tokens served from the prefix cache
  std::atomic<uint64_t> steps{0};                  // engine steps
  std::atomic<int64_t> queue_length{0};            // requests waiting for admission
  std::atomic<int64_t> running{0};                 // sequences open in the engine
  std::atomic<int64_t> pages_in_use{0}, pages_cached{0}, pages_total{0};
  std::atomic<int64_t> kv_bytes_in_use{0};
  Histogram batch_size;             // sequences per step
  Histogram time_to_first_token;    // seconds from arrival to the first sampled token

  void count(Outcome o) { requests[(int)o].fetch_add(1); }
  /// The whole exposition text.
  std::string render() const;
};

}  // namespace llm0::serve
