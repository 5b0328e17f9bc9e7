// The number format of training's matrix products (`llm0 train --precision auto|f32|bf16`, issue
// 28). bf16 is mixed precision as PyTorch's torch.autocast(dtype=bfloat16) and llm.c do it: float32
// master weights, gradients and AdamW state; the linear layers' products (forward and backward)
// take BF16 operands and accumulate in float32 (ops/bf16_gemm.h, Model::set_bf16_products), and so
// do attention's per-head products (Q Kᵀ, P V and their backward: ops/attention_gemm.h); norms,
// softmax and its statistics, RoPE, the loss, the optimizer and Gated DeltaNet's delta rule (a
// recurrence, S_t from S_{t-1}: a rounding made at one step is carried into every later one) stay
// float32.
// Saved activations: all stay float32. Each product rounds its own operands, so a BF16 copy of an
// activation read only by products (the inputs of q/k/v, gate/up, o and down) would give the same
// bits, but every such activation is also read by a float32 op (the norm's or SwiGLU's backward),
// whose gradient would then change; the memory is not what limits llm0's presets.
// auto: BF16 only where this CPU has BF16 dot products (AVX512_BF16 at the kernel level in use,
// core/cpu_features.h) AND the run's own products measure clearly faster in BF16 (kAutoBf16Margin).
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace llm0 {

enum class TrainPrecision { F32, Bf16 };

/// "f32" or "bf16" (the --precision values and trainer_state.json's "precision").
const char* precision_name(TrainPrecision p);
/// Parses "f32" / "bf16". Throws llm0::Error naming `what` for anything else.
TrainPrecision parse_precision(const std::string& s, const std::string& what);

/// A linear layer's weight shape [O, I] (PyTorch [out_features, in_features]) and its role.
struct LinearShape {
  const char* name;
  int O, I;
};
/// The dense-model linear shapes of a config: q_proj, k/v_proj, o_proj, gate/up_proj,
/// down_proj (intermediate_size, or moe_intermediate_size when every FFN is MoE), lm_head. auto
/// times these only: attention's per-head products run on the same BF16 kernel, so they gain
/// what these gain, and they are 7–10% of a step's product FLOPs at llm0-small's [8, 256].
std::vector<LinearShape> training_linear_shapes(const ModelConfig& cfg);

/// Seconds of the three products (y = x Wᵀ, dx = dy W, dW += dyᵀ x) of every shape at N token
/// rows, float32 sgemm and BF16 gemm_bf16, after one untimed sample of each: per round one sample
/// of each precision back to back (order alternating round by round), so that a load change on
/// a busy machine falls on both; each sample repeats the products to last >= 40 ms (many
/// scheduler slices); medians over `rounds` of each and of the per-round ratio.
struct GemmTiming {
  double f32_s = 0, bf16_s = 0, flops = 0;
  double speedup = 0;  // median over rounds of f32 seconds / bf16 seconds (paired)
};
GemmTiming time_training_gemms(const ModelConfig& cfg, int N, int rounds);

/// auto takes BF16 only when the paired median speedup of the products is at least this. Where
/// the CPU's BF16 dot products are no faster than its float32 FMAs (Intel without AMX: vdpbf16ps
/// at half the FMA rate) the products measure ≤ ~1.0×; where they are twice as fast (AMD Zen 4)
/// llm0's products measure ~1.3–1.6× (docs/performance.md). A 15% margin lies between the two,
/// above the spread of a paired median of 7 on a busy machine, and below it BF16 would buy at
/// most a few percent of a step (the products are ~70% of it) for its rounding.
inline constexpr double kAutoBf16Margin = 1.15;

/// The precision a run uses and why (one line for the start-up output).
struct PrecisionChoice {
  TrainPrecision precision = TrainPrecision::F32;
  std::string reason;
};
/// Resolves --precision `requested` ("auto", "f32", "bf16") for a run of `tokens` rows per
/// micro-batch. bf16 without BF16 dot products: llm0::Error naming AVX512_BF16 and the kernel
/// level in use (LLM0_KERNEL may force a lower one). auto, when the CPU has AVX512_BF16, measures
/// time_training_gemms at one thread on at most 512 of the run's rows, 7 rounds (~0.7 s), and
/// takes BF16 at a speedup of kAutoBf16Margin or more. Throws
/// llm0::Error for another value.
PrecisionChoice choose_precision(const std::string& requested, const ModelConfig& cfg, int tokens);

}  // namespace llm0
