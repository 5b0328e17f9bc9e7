// The number formats an inference run uses (`--weights-dtype auto|f32|bf16`, `--kv-dtype
// f32|bf16` on forward, generate and bench generate): which weights the kernels read in BF16
// (Model::use_bf16_weights) and which element type the caches store (cache/cache_rows.h).
#pragma once
#include <optional>
#include <string_view>

#include "cache/cache_rows.h"
#include "io/safetensors.h"

namespace llm0 {

class Model;

/// `--weights-dtype`: auto = as the checkpoint stores its matrices.
enum class WeightsDtype { Auto, F32, BF16 };

/// "auto" | "f32" (or "fp32") | "bf16". Throws llm0::Error naming the value otherwise.
WeightsDtype parse_weights_dtype(std::string_view name);

struct InferDtypes {
  WeightsDtype weights = WeightsDtype::Auto;
  std::optional<ElementType> kv;  // unset: BF16 when the weights are BF16, else float32
};

/// What `weights` means for a checkpoint whose matrices are stored as `stored`: auto gives BF16
/// for a BF16 checkpoint and float32 for F32 and F16 ones (F16 widens exactly; llm0 has no F16
/// kernels, and rounding F16 to BF16 would lose 3 mantissa bits unasked — `--weights-dtype bf16`
/// does that on request).
bool use_bf16(WeightsDtype weights, DType stored);

/// Applies `d` to a loaded model: BF16 weights if use_bf16(...), and the cache dtype.
void apply_infer_dtypes(Model& model, const InferDtypes& d, DType stored);

}  // namespace llm0
