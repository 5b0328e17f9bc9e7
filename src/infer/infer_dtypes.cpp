// Inference number formats. See infer_dtypes.h.
#include "infer/infer_dtypes.h"

#include <string>

#include "core/check.h"
#include "model/model.h"

namespace llm0 {

WeightsDtype parse_weights_dtype(std::string_view name) {
  if (name == "auto") return WeightsDtype::Auto;
  if (name == "f32" || name == "fp32") return WeightsDtype::F32;
  if (name == "bf16") return WeightsDtype::BF16;
  LLM0_FAIL("unknown weights dtype \"{}\" (expected auto, f32 or bf16)", std::string(name));
  return WeightsDtype::Auto;
}

bool use_bf16(WeightsDtype weights, DType stored) {
  return weights == WeightsDtype::BF16 || (weights == WeightsDtype::Auto && stored == DType::BF16);
}

void apply_infer_dtypes(Model& model, const InferDtypes& d, DType stored) {
  const bool bf16 = use_bf16(d.weights, stored);
  if (bf16) model.use_bf16_weights();
  model.set_kv_dtype(d.kv.value_or(bf16 ? ElementType::BF16 : ElementType::F32));
}

}  // namespace llm0
