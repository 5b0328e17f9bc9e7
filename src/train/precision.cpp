// --precision: the refusal, the start-up measurement and the choice. See precision.h.
#include "train/precision.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/check.h"
#include "core/cpu_features.h"
#include "core/threads.h"
#include "ops/matmul.h"

namespace llm0 {

const char* precision_name(TrainPrecision p) { return p == TrainPrecision::Bf16 ? "bf16" : "f32"; }

TrainPrecision parse_precision(const std::string& s, const std::string& what) {
  if (s == "f32") return TrainPrecision::F32;
  if (s == "bf16") return TrainPrecision::Bf16;
  throw Error(format("{}: precision '{}' is neither f32 nor bf16", what, s));
}

std::vector<LinearShape> training_linear_shapes(const ModelConfig& cfg) {
  const int C = cfg.hidden_size, D = cfg.head_dim, H = cfg.num_attention_heads;
  const int F = cfg.intermediate_size > 0 ? cfg.intermediate_size : cfg.moe.moe_intermediate_size;
  return {{"q_proj", H * D, C},       {"k/v_proj", cfg.num_key_value_heads * D, C},
          {"o_proj", C, H * D},       {"gate/up_proj", F, C},
          {"down_proj", C, F},        {"lm_head", cfg.vocab_size, C}};
}

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

GemmTiming time_training_gemms(const ModelConfig& cfg, int N, int rounds) {
  struct Buffers {
    LinearShape s;
    std::vector<float> x, W, dW, y, dx;
  };
  std::vector<Buffers> shapes;
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  GemmTiming t;
  for (const LinearShape& s : training_linear_shapes(cfg)) {
    Buffers b{s, std::vector<float>((size_t)N * s.I), std::vector<float>((size_t)s.O * s.I),
              std::vector<float>((size_t)s.O * s.I), std::vector<float>((size_t)N * s.O),
              std::vector<float>((size_t)N * s.I)};
    for (float& e : b.x) e = nd(rng);
    for (float& e : b.W) e = 0.05f * nd(rng);
    shapes.push_back(std::move(b));
    t.flops += 6.0 * N * s.O * s.I;
  }
  // All three products of every shape in one precision, `reps` times: one sample (seconds per
  // repetition).
  int reps = 1;
  auto sample = [&](bool bf16) {
    return seconds([&] {
      for (int r = 0; r < reps; ++r)
        for (Buffers& b : shapes) {
          Weight w(b.W.data());
          w.bf16_products = bf16;
          linear_forward(b.y.data(), b.x.data(), w, nullptr, N, b.s.I, b.s.O);
          linear_backward(b.dx.data(), b.dW.data(), nullptr, b.y.data(), b.x.data(), w, N,
                          b.s.I, b.s.O);
        }
    }) / reps;
  };
  sample(false), sample(true);  // untimed: first-touch pages, packing and BLAS buffers
  // A sample of at least kSampleSeconds spans many scheduler time slices (a few ms each), so
  // another process on the core slows it by its share of the core, not by whole slices.
  constexpr double kSampleSeconds = 0.04;
  const double once = std::min(sample(false), sample(true));  // reps = 1 here
  reps = std::clamp((int)std::ceil(kSampleSeconds / std::max(once, 1e-6)), 1, 64);
  std::vector<double> f32, bf16, ratio;
  for (int r = 0; r < rounds; ++r) {  // the two samples of a round adjacent, order alternating
    const bool bf16_first = r % 2 == 1;
    const double a = sample(bf16_first), b = sample(!bf16_first);
    f32.push_back(bf16_first ? b : a), bf16.push_back(bf16_first ? a : b);
    ratio.push_back(f32.back() / bf16.back());
  }
  t.f32_s = median(f32), t.bf16_s = median(bf16), t.speedup = median(ratio);
  return t;
}

PrecisionChoice choose_precision(const std::string& requested, const ModelConfig& cfg, int tokens) {
  LLM0_CHECK(requested == "auto" || requested == "f32" || requested == "bf16",
             "--precision {}: expected auto, f32 or bf16", requested);
  const bool hw = kernel_isa() == Isa::Avx512Bf16;
  const std::string level = format("kernel level {}{}", isa_name(kernel_isa()),
                                   forced_isa() ? " (forced by LLM0_KERNEL)" : "");
  if (requested == "f32") return {TrainPrecision::F32, "as asked: --precision f32"};
  if (requested == "bf16") {
    LLM0_CHECK(hw, "--precision bf16 needs BF16 dot products (AVX512_BF16's vdpbf16ps), which the "
               "{} lacks (use --precision f32 or auto)", level);
    return {TrainPrecision::Bf16, "as asked: --precision bf16"};
  }
  if (!hw) return {TrainPrecision::F32, format("auto: no AVX512_BF16 at {}", level)};
  // One thread: which kernel does more work per core is a property of the core; the run's
  // threads split the same tiles in both precisions. With several threads on a busy machine the
  // timing would measure how often a barrier waits on a descheduled thread, not the kernels.
  const int threads = num_threads();
  set_num_threads(1);
  GemmTiming t;
  try {
    t = time_training_gemms(cfg, std::min(tokens, 512), 7);
  } catch (...) {
    set_num_threads(threads);
    throw;
  }
  set_num_threads(threads);
  const double f32 = t.flops / t.f32_s * 1e-9, bf16 = t.flops / t.bf16_s * 1e-9;
  const bool use = t.speedup >= kAutoBf16Margin;
  char why[240];
  std::snprintf(why, sizeof why, "auto: this run's linear products measure %.0f GFLOP/s per "
                "core in BF16 vs %.0f in float32, %.2fx (median of 7 paired rounds; bf16 needs "
                ">= %.2fx)%s",
                bf16, f32, t.speedup, kAutoBf16Margin, use ? "" : ", so float32 stays");
  return {use ? TrainPrecision::Bf16 : TrainPrecision::F32, why};
}

}  // namespace llm0
