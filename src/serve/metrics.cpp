// Prometheus text of the server's counters, gauges and histograms (metrics.h).
#include "serve/metrics.h"

#include <sstream>

namespace llm0::serve {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double x) {
  size_t i = 0;
  while (i < bounds_.size() && x > bounds_[i]) ++i;
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[i];
  sum_ += x;
  ++count_;
}

std::string Histogram::render(const std::string& name, const std::string& help) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream os;
  os << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
  uint64_t cum = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cum += counts_[i];
    os << name << "_bucket{le=\"" << bounds_[i] << "\"} " << cum << "\n";
  }
  os << name << "_bucket{le=\"+Inf\"} " << count_ << "\n";
  os << name << "_sum " << sum_ << "\n" << name << "_count " << count_ << "\n";
  return os.str();
}

Metrics::Metrics()
    : batch_size({1, 2, 4, 8, 16, 32, 64, 128}),
      time_to_first_token({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}) {}

namespace {
template <class T>
void line(std::ostringstream& os, const char* name, const char* type, const char* help, T value) {
  os << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
     << name << " " << value << "\n";
}
}  // namespace

std::string Metrics::render() const {
  std::ostringstream os;
  os << "# HELP llm0_requests_total Requests by how they ended.\n# TYPE llm0_requests_total counter\n";
  const char* names[] = {"stop", "length", "cancelled", "rejected", "error"};
  for (int i = 0; i < 5; ++i)
    os << "llm0_requests_total{outcome=\"" << names[i] << "\"} " << requests[i].load() << "\n";
  line(os, "llm0_prompt_tokens_total", "counter", "Prompt tokens of admitted requests.", prompt_tokens.load());
  line(os, "llm0_generation_tokens_total", "counter", "Tokens sampled.", generation_tokens.load());
  line(os, "llm0_prefix_cache_hit_tokens_total", "counter",
       "Prompt tokens whose K/V came from the prefix cache (no prefill).", prefix_cache_hit_tokens.load());
  line(os, "llm0_steps_total", "counter", "Engine steps (one batched forward each).", steps.load());
  line(os, "llm0_queue_length", "gauge", "Requests waiting for admission.", queue_length.load());
  line(os, "llm0_requests_running", "gauge", "Sequences open in the engine.", running.load());
  line(os, "llm0_kv_pages_in_use", "gauge", "KV pages referenced by open sequences.", pages_in_use.load());
  line(os, "llm0_kv_pages_cached", "gauge", "Unreferenced KV pages kept by the prefix cache.", pages_cached.load());
  line(os, "llm0_kv_pages_total", "gauge", "KV pages in the pool.", pages_total.load());
  line(os, "llm0_kv_bytes_in_use", "gauge", "Bytes of K/V held for open sequences.", kv_bytes_in_use.load());
  os << batch_size.render("llm0_batch_size", "Sequences per engine step.");
  os << time_to_first_token.render("llm0_time_to_first_token_seconds",
                                   "Seconds from a request's arrival to its first sampled token.");
  return os.str();
}

}  // namespace llm0::serve
