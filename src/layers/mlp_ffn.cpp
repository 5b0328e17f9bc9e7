// The dense MLP's side of the feed-forward contract (layers/ffn.h): parameter table (HF LlamaMLP
// names; GPT-2 style GELU without gate_proj) and buffer plan.
//   model.layers.{i}.mlp.{gate,up}_proj.weight [F, C], mlp.down_proj.weight [C, F] (+ .bias)
#include "layers/mlp.h"

namespace llm0 {

void MlpLayer::bind_at(const ParamBind& b, const std::string& f) {
  MlpWeights& m = w;
  b(f + "gate_proj.weight", m.gate_w, m.dgate_w), b(f + "gate_proj.bias", m.gate_b, m.dgate_b);
  b(f + "up_proj.weight", m.up_w, m.dup_w), b(f + "up_proj.bias", m.up_b, m.dup_b);
  b(f + "down_proj.weight", m.down_w, m.ddown_w), b(f + "down_proj.bias", m.down_b, m.ddown_b);
}

void MlpLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const ModelConfig& c = *cfg;
  const std::string s = layer_prefix + "mlp.";
  const int C = c.hidden_size, Fw = F();
  if (c.mlp() == MlpKind::SwiGLU) declare_linear(p, s + "gate_proj", Fw, C, c.mlp_bias);
  declare_linear(p, s + "up_proj", Fw, C, c.mlp_bias);
  declare_linear(p, s + "down_proj", C, Fw, c.mlp_bias);
}

void MlpLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  bind_at(b, layer_prefix + "mlp.");
}

std::vector<Weight*> MlpLayer::matrices() { return {&w.gate_w, &w.up_w, &w.down_w}; }

// Inference keeps gate and up apart (InferScratch plans no fused gate|up rows).
std::vector<LinearMap> MlpLayer::linear_maps() const {
  const int C = cfg->hidden_size, F = this->F();
  std::vector<LinearMap> maps;
  if (cfg->mlp() == MlpKind::SwiGLU) maps.push_back({w.gate_w, C, F});
  maps.push_back({w.up_w, C, F});
  maps.push_back({w.down_w, F, C});
  return maps;
}

ParamCounts MlpLayer::param_counts() const {
  const ModelConfig& c = *cfg;
  const double C = c.hidden_size, Fw = F(), mats = c.mlp() == MlpKind::SwiGLU ? 3.0 : 2.0;
  ParamCounts p;
  p.matmul_active = mats * C * Fw;
  p.total = p.active = p.matmul_active + (c.mlp_bias ? (mats - 1) * Fw + C : 0);
  return p;
}

bool MlpLayer::gate_up_stacked() const {
  if (cfg->mlp() != MlpKind::SwiGLU) return false;
  const long FC = (long)F() * cfg->hidden_size;
  return w.gate_w.f32 && w.up_w.f32 == w.gate_w.f32 + FC && !w.gate_b && !w.up_b && w.dgate_w &&
         w.dup_w == w.dgate_w + FC;
}

// Fused (SwiGLU training with stacked weights): gate|up as one [N, 2F] buffer (rows 2F apart);
// otherwise gate (SwiGLU only) and up as separate [N, F] buffers.
MlpSaved MlpLayer::carve_state(Arena& a, int N_, bool fuse_gate_up) const {
  const size_t N = (size_t)N_, Fw = (size_t)F();
  const bool swiglu = cfg->mlp() == MlpKind::SwiGLU;
  MlpSaved m;
  if (swiglu && fuse_gate_up) {
    m.gate = a.take(N * 2 * Fw), m.up = m.gate + Fw, m.ld = 2 * (long)Fw;
  } else {
    m.gate = swiglu ? a.take(N * Fw) : nullptr, m.up = a.take(N * Fw);
  }
  m.h = a.take(N * Fw);
  return m;
}

MlpGradScratch MlpLayer::carve_grads(Arena& a, int N_, bool fuse_gate_up) const {
  const size_t N = (size_t)N_, Fw = (size_t)F();
  MlpGradScratch g;
  if (cfg->mlp() == MlpKind::SwiGLU && fuse_gate_up) {  // [N, 2F] rows dgate | dup
    g.dgate = a.take(N * 2 * Fw), g.dup = g.dgate + Fw, g.ld = 2 * (long)Fw;
  } else {
    g.dgate = a.take(N * Fw), g.dup = a.take(N * Fw);
  }
  g.dh = a.take(N * Fw);
  return g;
}

}  // namespace llm0
