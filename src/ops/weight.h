// A linear layer's weight matrix W [O, I] (PyTorch [out_features, in_features]) as the products
// read it: float32 (training, and F32 inference) or bfloat16 bit patterns (BF16 inference,
// ops/bf16_kernels.h). Exactly one of the two pointers is set (or neither: no such weight).
// A float pointer converts to a Weight implicitly, so training code keeps passing float*;
// a Weight converts back to const float* only when it holds float32 (backward, and the few
// places that slice a matrix by hand) and throws otherwise.
// Mixed-precision training (train/precision.h) keeps f32 as the master copy and sets
// bf16_products: the linear layer's three products then take BF16 operands and accumulate in
// float32 (ops/bf16_gemm.h).
#pragma once
#include <cstdint>

#include "core/check.h"

namespace llm0 {

struct Weight {
  const float* f32 = nullptr;     // [O, I] float32
  const uint16_t* bf16 = nullptr; // [O, I] bfloat16 bits
  bool bf16_products = false;     // f32 set: products with BF16 operands (training, --precision bf16)

  Weight() = default;
  Weight(const float* w) : f32(w) {}  // NOLINT: implicit by design (see the header)
  static Weight from_bf16(const uint16_t* w) {
    Weight r;
    r.bf16 = w;
    return r;
  }
  explicit operator bool() const { return f32 != nullptr || bf16 != nullptr; }
  /// The float32 matrix. Throws llm0::Error if the weight is held in BF16 (inference only).
  operator const float*() const {  // NOLINT: implicit by design
    LLM0_CHECK(bf16 == nullptr, "this weight is held in BF16 for inference; training and this "
               "operation need float32 weights (load the model with --weights-dtype f32)");
    return f32;
  }
};

}  // namespace llm0
