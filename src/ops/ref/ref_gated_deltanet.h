// Naive double-precision reference of the Gated DeltaNet layer in the Qwen3-Next layout (HF
// modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward with torch_recurrent_gated_delta_rule):
// projections, regrouping by key head, causal depthwise conv + SiLU, l2norm, gates, the per-token
// delta rule (ref_gated_delta.h), gated RMSNorm and out_proj, written out independently of the
// fast layer (layers/gated_deltanet.h has the layouts). Zero state and zero conv history.
#pragma once
#include <vector>

#include "config/gated_deltanet_config.h"

namespace llm0::ref {

/// Weights in double, HF shapes: in_proj_qkvz [P, C], in_proj_ba [2·nv, C], conv1d [Cc, K],
/// dt_bias, A_log [nv], norm [dv], out_proj [C, nv·dv].
struct GatedDeltaNetParams {
  std::vector<double> in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm, out_proj;
};

/// y [B, T, C] from x [B, T, C]. eps: the gated norm's rms_norm_eps.
std::vector<double> gated_deltanet_forward(const std::vector<double>& x,
                                           const GatedDeltaNetParams& p,
                                           const GatedDeltaNetConfig& c, int C, int B, int T,
                                           double eps);

}  // namespace llm0::ref
