// The mixture of experts' side of the feed-forward contract (layers/ffn.h): parameter table (HF
// Qwen2/Qwen3-MoE and DeepSeek-V2/V3 names, see layers/moe.h), buffer plan and the routing's
// readings of a forward state.
#include "layers/moe.h"

namespace llm0 {

namespace {
void declare_swiglu(ParamStore& p, const std::string& s, int C, int F) {
  declare_linear(p, s + "gate_proj", F, C, false);
  declare_linear(p, s + "up_proj", F, C, false);
  declare_linear(p, s + "down_proj", C, F, false);
}

double swiglu_params(double C, double F) { return 3.0 * C * F; }
}  // namespace

void MoeLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const ModelConfig& c = *cfg;
  const MoeConfig& m = c.moe;
  const std::string s = layer_prefix + "mlp.";
  const int C = c.hidden_size;
  p.declare(s + "gate.weight", Shape{m.num_experts, C});
  if (m.has_correction_bias()) p.declare(s + "gate.e_score_correction_bias", Shape{m.num_experts});
  for (int e = 0; e < m.num_experts; ++e)
    declare_swiglu(p, s + "experts." + std::to_string(e) + ".", C, m.moe_intermediate_size);
  if (m.shared_expert_intermediate_size == 0) return;
  declare_swiglu(p, s + m.shared_name(c.deepseek()) + ".", C, m.shared_expert_intermediate_size);
  if (m.shared_expert_gate) p.declare(s + "shared_expert_gate.weight", Shape{1, C});
}

void MoeLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  const ModelConfig& c = *cfg;
  const MoeConfig& m = c.moe;
  const std::string f = layer_prefix + "mlp.";
  gate_w = b.value(f + "gate.weight"), dgate_w = b.grad(f + "gate.weight");
  bias = b.mutable_value(f + "gate.e_score_correction_bias");
  experts.assign((size_t)m.num_experts, MlpLayer(c, m.moe_intermediate_size));
  for (int e = 0; e < m.num_experts; ++e)
    experts[(size_t)e].bind_at(b, f + "experts." + std::to_string(e) + ".");
  shared = MlpLayer(c, m.shared_expert_intermediate_size);
  shared.bind_at(b, f + m.shared_name(c.deepseek()) + ".");
  shared_gate_w = b.value(f + "shared_expert_gate.weight");
  dshared_gate_w = b.grad(f + "shared_expert_gate.weight");
}

// Every routed expert and the shared one. The router, the correction bias and the shared
// expert's gate row stay float32: they are read whole for every token (E or 1 rows), and the
// routing decisions should not move with the weights' rounding.
std::vector<Weight*> MoeLayer::matrices() {
  std::vector<Weight*> v;
  for (MlpLayer& e : experts)
    for (Weight* w : e.matrices()) v.push_back(w);
  for (Weight* w : shared.matrices()) v.push_back(w);
  return v;
}

// The router (its logits go through linear_forward; the shared expert's gate row does not), every
// routed expert, the shared one.
std::vector<LinearMap> MoeLayer::linear_maps() const {
  std::vector<LinearMap> maps{{gate_w, cfg->hidden_size, cfg->moe.num_experts}};
  for (const MlpLayer& e : experts)
    for (const LinearMap& m : e.linear_maps()) maps.push_back(m);
  if (cfg->moe.shared_expert_intermediate_size > 0)
    for (const LinearMap& m : shared.linear_maps()) maps.push_back(m);
  return maps;
}

ParamCounts MoeLayer::param_counts() const {
  const MoeConfig& m = cfg->moe;
  const double C = cfg->hidden_size;
  const double E = m.num_experts, K = m.num_experts_per_tok, Fe = m.moe_intermediate_size;
  const double Fs = m.shared_expert_intermediate_size;
  const double router = E * C, gate = m.shared_expert_gate ? C : 0;
  const double shared_params = Fs > 0 ? swiglu_params(C, Fs) : 0;
  ParamCounts p;
  p.experts = E * swiglu_params(C, Fe);
  p.total = router + (m.has_correction_bias() ? E : 0) + p.experts + shared_params + gate;
  p.matmul_active = router + K * swiglu_params(C, Fe) + shared_params + gate;
  p.active = p.matmul_active + (m.has_correction_bias() ? E : 0);
  return p;
}

MoeSaved MoeLayer::carve_state(Arena& a, int N, bool) const {
  MoeSaved s;
  carve_moe([&a](size_t n) { return a.take(n); }, MoeSizes(*cfg, (size_t)N), s);
  return s;
}

MoeGradScratch MoeLayer::carve_grads(Arena& a, int N, bool) const {
  MoeGradScratch g;
  carve_moe_grads([&a](size_t n) { return a.take(n); }, MoeSizes(*cfg, (size_t)N), g);
  return g;
}

double MoeLayer::balance(const LayerBuffers& state, int N) const {
  return balance(held<MoeSaved>(state), N);
}

const float* MoeLayer::expert_load(const LayerBuffers& state) const {
  return held<MoeSaved>(state).load;
}

}  // namespace llm0
