// Matrix-vector product. See matvec.h.
#include "ops/matvec.h"

#include "core/simd.h"
#include "ops/bf16_kernels.h"
#include "ops/linear_rows.h"

namespace llm0 {

namespace {
using simd::f32x16;
using simd::load;

// Σ_i w[i]·x[i]: one pass over w, four accumulators to hide the FMA latency.
float dot(const float* w, const float* x, int I) {
  f32x16 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int i = 0;
  for (; i + 64 <= I; i += 64) {
    a0 += load(w + i) * load(x + i);
    a1 += load(w + i + 16) * load(x + i + 16);
    a2 += load(w + i + 32) * load(x + i + 32);
    a3 += load(w + i + 48) * load(x + i + 48);
  }
  for (; i + 16 <= I; i += 16) a0 += load(w + i) * load(x + i);
  const f32x16 a = (a0 + a1) + (a2 + a3);
  float s = simd::sum(a);
  for (; i < I; ++i) s += w[i] * x[i];
  return s;
}
}  // namespace

void matvec(float* y, const float* W, const float* x, const float* b, int O, int I) {
  matvec(y, Weight(W), x, b, O, I);
}

void matvec(float* y, Weight W, const float* x, const float* b, int O, int I) {
  const LinearOut t{y, W, b, O};
  matvec_group(std::span<const LinearOut>(&t, 1), x, I);
}

void matvec_group(std::span<const LinearOut> targets, const float* x, int I) {
  long rows = 0;
  bool any_bf16 = false;
  for (const LinearOut& t : targets) rows += t.O, any_bf16 |= t.W.bf16 != nullptr;
  // x in the BF16 kernel's form, prepared once per call; the threads share this one object.
  static thread_local Bf16Operand xb_buffers;
  Bf16Operand& xb = xb_buffers;
  if (any_bf16) xb.prepare(x, I, bf16_kernel());
#pragma omp parallel for schedule(static) if (rows * I > 32768)
  for (long r = 0; r < rows; ++r) {
    long o = r;
    size_t k = 0;
    while (o >= targets[k].O) o -= targets[k++].O;  // which target owns global row r
    const LinearOut& t = targets[k];
    const float d = t.W.bf16 ? bf16_dot(t.W.bf16 + o * I, xb) : dot(t.W.f32 + o * I, x, I);
    t.y[o] = d + (t.b ? t.b[o] : 0.0f);
  }
}

}  // namespace llm0
