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
    // Biases and DeepSeek-V3's e_score_correction_bias start at 0 (no routing preference).
    if (ends_with(p.name, ".bias") || ends_with(p.name, "e_score_correction_bias")) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = 0.0f;
    } else if (norm) {
      for (size_t i = 0; i < p.numel; ++i) w[i] = 1.0f;
    } else {
      const bool resid = ends_with(p.name, "o_proj.weight") || ends_with(p.name, "down_proj.weight");
      const double sd = resid ? std_resid : std_base;
      for (size_t i = 0; i < p.numel; ++i) w[i] = (float)(sd * normal());
    }
  }
}

}  // namespace llm0
