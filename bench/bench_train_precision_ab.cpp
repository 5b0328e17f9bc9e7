// BF16 against float32 training steps in one process (issue 28): one model, Model::set_bf16_products
// toggled step by step, the two precisions alternating pair by pair (order flipped every pair), so
// a load change on a shared machine falls on both. A step here is forward + backward of [B, T]
// (AdamW, the same in both, left out). Each sample is the process CPU time of one step (at one
// thread it does not grow while other jobs take the core). Prints per precision the median CPU
// seconds and tokens per CPU second, and the median of the per-pair ratios f32 / bf16.
// Usage: bench_train_precision_ab CONFIG.json [pairs=8] [B=8] [T=256]   (threads: OMP_NUM_THREADS)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench_cpu_time.h"
#include "config/config.h"
#include "model/init.h"
#include "model/model.h"

using namespace llm0;
using bench::cpu_seconds, bench::median;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_train_precision_ab CONFIG.json [pairs] [B] [T]\n");
    return 2;
  }
  const ModelConfig cfg = ModelConfig::from_file(argv[1]);
  const int pairs = argc > 2 ? std::atoi(argv[2]) : 8, B = argc > 3 ? std::atoi(argv[3]) : 8;
  const int T = argc > 4 ? std::atoi(argv[4]) : 256;
  Model m(cfg);
  init_weights(m, 1);
  std::mt19937 rng(7);
  std::vector<int> tokens((size_t)B * T), targets((size_t)B * T);
  for (int& t : tokens) t = (int)(rng() % (unsigned)cfg.vocab_size);
  for (int& t : targets) t = (int)(rng() % (unsigned)cfg.vocab_size);
  auto step = [&](bool bf16) {
    m.set_bf16_products(bf16);
    const double t0 = cpu_seconds();
    m.params().zero_grad();
    long n = 0;
    m.forward(tokens.data(), targets.data(), B, T, &n);
    m.backward(1.0f / (float)n);
    return cpu_seconds() - t0;
  };
  step(false), step(true);  // warm-up: the activation plan, scratch, pages
  const bench::PairedSamples ps = bench::alternate(pairs, step);
  const std::vector<double>& f32 = ps.f32, &bf16 = ps.bf16, &ratio = ps.ratio;
  const double tok = (double)B * T;
  std::printf("%s [%d, %d], %d pairs: f32 %.3f s (%.0f tok/CPU-s), bf16 %.3f s (%.0f tok/CPU-s), "
              "f32/bf16 %.3fx (min %.3f, max %.3f)\n", argv[1], B, T, pairs, median(f32),
              tok / median(f32), median(bf16), tok / median(bf16), median(ratio),
              *std::min_element(ratio.begin(), ratio.end()),
              *std::max_element(ratio.begin(), ratio.end()));
}
