// Training attention's forward + backward (ops/attention.h) in float32 against BF16 products
// (AttentionDims::bf16_products, issue 28), on one config's attention shapes at [B, T]. Rounds
// alternate the two (order flipped every round); each sample is CPU time of one forward +
// backward (process CPU time: at 1 thread it does not grow while other jobs take the core). Prints
// per precision the median ms and the median of the per-round ratios f32 / bf16.
// Usage: bench_attention_train CONFIG.json [B=8] [T=256] [rounds=9] [only=f32|bf16]
// (threads: OMP_NUM_THREADS; `only` times one precision, for a profiler)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_cpu_time.h"
#include "config/config.h"
#include "ops/attention.h"

using namespace llm0;
using bench::cpu_seconds, bench::median;

namespace {
std::vector<float> randn(size_t n, std::mt19937& g) {
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = nd(g);
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_attention_train CONFIG.json [B] [T] [rounds] [f32|bf16]\n");
    return 2;
  }
  const ModelConfig cfg = ModelConfig::from_file(argv[1]);
  AttentionDims d;
  d.B = argc > 2 ? std::atoi(argv[2]) : 8;
  d.Tq = d.Tk = argc > 3 ? std::atoi(argv[3]) : 256;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 9;
  d.H = cfg.num_attention_heads, d.Hkv = cfg.num_key_value_heads, d.D = d.Dv = cfg.head_dim;
  d.scale = 1.0f / std::sqrt((float)d.D);
  const size_t nq = (size_t)d.B * d.Tq * d.H * d.D, nk = (size_t)d.B * d.Tk * d.Hkv * d.D;
  std::mt19937 g(1);
  const std::vector<float> q = randn(nq, g), k = randn(nk, g), v = randn(nk, g), dout = randn(nq, g);
  std::vector<float> out(nq), lse((size_t)d.B * d.H * d.Tq), dq(nq), dk(nk), dv(nk);
  auto step = [&](bool bf16) {
    AttentionDims e = d;
    e.bf16_products = bf16;
    const double t0 = cpu_seconds();
    attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), e);
    attention_backward(dq.data(), dk.data(), dv.data(), dout.data(), q.data(), k.data(), v.data(),
                       out.data(), lse.data(), e);
    return cpu_seconds() - t0;
  };
  if (argc > 5) {  // one precision only
    const bool bf16 = std::string(argv[5]) == "bf16";
    std::vector<double> t;
    for (int r = 0; r < rounds; ++r) t.push_back(step(bf16));
    std::printf("%s: %.2f ms (CPU time, median of %d)\n", bf16 ? "bf16" : "f32", 1e3 * median(t),
                rounds);
    return 0;
  }
  step(false), step(true);  // warm-up: scratch buffers, pages
  const bench::PairedSamples ps = bench::alternate(rounds, step);
  const std::vector<double>& f32 = ps.f32, &bf16 = ps.bf16, &ratio = ps.ratio;
  std::printf("%s B=%d T=%d H=%d Hkv=%d D=%d: f32 %.2f ms, bf16 %.2f ms (CPU time, medians of %d), "
              "f32/bf16 %.2fx\n", argv[1], d.B, d.Tq, d.H, d.Hkv, d.D, 1e3 * median(f32),
              1e3 * median(bf16), rounds, median(ratio));
}
