// The parameter table of a model: every Hugging Face parameter name and PyTorch shape a config
// implies (layout documented in model/param_table.cpp), declared without allocating, so that
// checkpoint readers and importers (io/gguf/import.h) know what a model holds before building it.
#pragma once
#include "config/config.h"
#include "core/params.h"

namespace llm0 {

/// Declares on `p` (not finalized) every parameter of `cfg` in the order Model stores them:
/// embedding, then per layer the input norm, the mixer (attention, MLA or Gated DeltaNet), the
/// post-attention norm and the MLP or experts, then the final norm and lm_head (absent when tied).
void declare_model_params(ParamStore& p, const ModelConfig& cfg);

}  // namespace llm0
