// GPT-2-style initialisation. See init.h.
#include "model/init.h"

#include <cmath>
#include <random>
#include <string>

namespace llm0 {

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Box-Muller on our own uniform draws so the numbers do not depend on the standard library.
struct Normal {
  std::mt19937_64 rng;
  double uniform() { return ((rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  double operator()() {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * M_PI * uniform());
  }
};
}  // namespace

void init_weights(Model& model, uint64_t seed) {
  ParamStore& store = model.params();
  const double std_base = 0.02;
  const double std_resid = 0.02 / std::sqrt(2.0 * model.config().num_hidden_layers);
  Normal normal{std::mt19937_64(seed)};
  for (const ParamInfo& p : store.params()) {
    float* w = store.data() + p.offset;
    const bool norm = p.name.find("norm") != std::string::npos;
    // Gated DeltaNet (HF Qwen3NextPreTrainedModel._init_weights): dt_bias 1, A_log =
    // log(U(0, 16)); the depthwise conv as PyTorch's Conv1d default, U(±1/√K); its gated norm
    // (linear_attn.norm) plain w = 1; Qwen3-Next's other norms (1 + w) start at w = 0.
    if (ends_with(p.name, "dt_bias")) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = 1.0f;
    } else if (ends_with(p.name, "A_log")) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = (float)std::log(16.0 * normal.uniform());
    } else if (ends_with(p.name, "conv1d.weight")) {
      const double bound = 1.0 / std::sqrt((double)p.shape.dims.back());
      for (size_t i = 0; i < p.numel; ++i) w[i] = (float)(bound * (2.0 * normal.uniform() - 1.0));
    } else if (norm && model.config().unit_offset_norms() &&
               p.name.find("linear_attn.") == std::string::npos) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = 0.0f;
    } else if (ends_with(p.name, ".bias") || ends_with(p.name, "e_score_correction_bias")) {
      // Biases and DeepSeek-V3's e_score_correction_bias start at 0 (no routing preference).
      for (size_t i = 0; i < p.numel; ++i) w[i] = 0.0f;
    } else if (norm) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = 1.0f;
    } else {
      const bool resid = ends_with(p.name, "o_proj.weight") ||
                         ends_with(p.name, "down_proj.weight") || ends_with(p.name, "out_proj.weight");
      const double sd = resid ? std_resid : std_base;
      for (size_t i = 0; i < p.numel; ++i) w[i] = (float)(sd * normal());
    }
  }
}

}  // namespace llm0
