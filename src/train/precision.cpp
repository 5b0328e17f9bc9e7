// --precision: the refusal, the start-up measurement and the choice. See precision.h.
#include "train/precision.h"


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "core/check.h"
#include "core/cpu_features.h"
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
  GemmTiming t;
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  for (const LinearShape& s : training_linear_shapes(cfg)) {
    std::vector<float> x((size_t)N * s.I), W((size_t)s.O * s.I), dW(W.size()), y((size_t)N * s.O),
        dx(x.size());
    for (float& e : x) e = nd(rng);
    for (float& e : W) e = 0.05f * nd(rng);
    Weight wf(W.data()), wb(W.data());
    wb.bf16_products = true;
    std::vector<double> f32, bf16;
    for (int r = 0; r < rounds; ++r)
      for (const Weight& w : {wf, wb})
        (w.bf16_products ? bf16 : f32).push_back(seconds([&] {
          linear_forward(y.data(), x.data(), w, nullptr, N, s.I, s.O);
          linear_backward(dx.data(), dW.data(), nullptr, y.data(), x.data(), w, N, s.I, s.O);
        }));
    t.f32_s += median(f32), t.bf16_s += median(bf16);
    t.flops += 6.0 * N * s.O * s.I;
  }
  return t;
}

PrecisionChoice choose_precision(const std::string& requested, const ModelConfig& cfg, int tokens) {
  LLM0_CHECK(requested == "auto" || requested == "f32" || requested == "bf16",
             "--precision {}: expected auto, f32 or bf16", requested);
  const bool hw = kernel_isa() == Isa::Avx512Bf16;
  const std::string level = format("kernel level {}{}", isa_name(kernel_isa()),
                                   forced_isa() ? " (forced by LLM0_KERNEL)" : "");
  if (requested == "f32") return {TrainPrecision::F32, "asked for (--precision f32)"};
  if (requested == "bf16") {
    LLM0_CHECK(hw, "--precision bf16 needs BF16 dot products (AVX512_BF16's vdpbf16ps), which the "
               "{} lacks (use --precision f32 or auto)", level);
    return {TrainPrecision::Bf16, "asked for (--precision bf16)"};
  }
  if (!hw) return {TrainPrecision::F32, format("auto: no AVX512_BF16 at {}", level)};
  const GemmTiming t = time_training_gemms(cfg, std::min(tokens, 512), 3);
  const double f32 = t.flops / t.f32_s * 1e-9, bf16 = t.flops / t.bf16_s * 1e-9;
  const bool use = t.bf16_s < t.f32_s;
  char why[200];
  std::snprintf(why, sizeof why, "auto: this run's linear products measure %.0f GFLOP/s in BF16 "
                "vs %.0f in float32 (%.2fx)%s", bf16, f32, t.f32_s / t.bf16_s,
                use ? "" : ", so float32 stays");
  return {use ? TrainPrecision::Bf16 : TrainPrecision::F32, why};
}

}  // namespace llm0
