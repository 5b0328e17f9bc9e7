// Gated DeltaNet's side of the mixer contract (layers/mixer.h): its parameter table (HF
// Qwen3NextGatedDeltaNet names), buffer plan, cache spec (a fixed state per sequence: S and the
// conv window, cache/recurrent_state.h) and the FLOPs it reports to the ledger. Symbols as in
// layers/gated_deltanet.h.
//   linear_attn.in_proj_qkvz [2·nk·dk + 2·nv·dv, C], in_proj_ba [2·nv, C], conv1d.weight [Cc, 1, K],
//   dt_bias [nv], A_log [nv], norm.weight [dv], out_proj [C, nv·dv]
#include "cache/recurrent_state.h"
#include "layers/gated_deltanet.h"

namespace llm0 {

void GatedDeltaNetLayer::declare(ParamStore& p, const std::string& layer_prefix) const {
  const std::string s = layer_prefix + "linear_attn.";
  declare_linear(p, s + "in_proj_qkvz", cfg.qkvz_rows(), C, false);
  declare_linear(p, s + "in_proj_ba", 2 * cfg.linear_num_value_heads, C, false);
  p.declare(s + "conv1d.weight", Shape{cfg.conv_channels(), 1, cfg.linear_conv_kernel_dim});
  p.declare(s + "dt_bias", Shape{cfg.linear_num_value_heads});
  p.declare(s + "A_log", Shape{cfg.linear_num_value_heads});
  p.declare(s + "norm.weight", Shape{cfg.linear_value_head_dim});
  declare_linear(p, s + "out_proj", C, cfg.value_dim(), false);
}

void GatedDeltaNetLayer::bind(const ParamBind& b, const std::string& layer_prefix) {
  const std::string s = layer_prefix + "linear_attn.";
  b(s + "in_proj_qkvz.weight", w.in_proj_qkvz, w.din_proj_qkvz);
  b(s + "in_proj_ba.weight", w.in_proj_ba, w.din_proj_ba);
  b(s + "conv1d.weight", w.conv1d, w.dconv1d);
  b(s + "dt_bias", w.dt_bias, w.ddt_bias), b(s + "A_log", w.A_log, w.dA_log);
  b(s + "norm.weight", w.norm, w.dnorm), b(s + "out_proj.weight", w.out_proj, w.dout_proj);
}

// Inference keeps the projections float32 (Model::use_bf16_weights); mixed-precision training
// takes their products in BF16.
std::vector<Weight*> GatedDeltaNetLayer::matrices(bool inference_bf16) {
  if (inference_bf16) return {};
  return {&w.in_proj_qkvz, &w.in_proj_ba, &w.out_proj};
}

// As project_rows and output pass them.
std::vector<LinearMap> GatedDeltaNetLayer::linear_maps() const {
  return {{w.in_proj_qkvz, C, cfg.qkvz_rows()}, {w.in_proj_ba, C, 2 * cfg.linear_num_value_heads},
          {w.out_proj, cfg.value_dim(), C}};
}

// in_proj_qkvz, in_proj_ba and out_proj are products; the depthwise conv, dt_bias, A_log and the
// gated norm are counted in the total only.
ParamCounts GatedDeltaNetLayer::param_counts() const {
  const double nv = cfg.linear_num_value_heads;
  ParamCounts p;
  p.matmul_active = (double)cfg.qkvz_rows() * C + 2 * nv * C + C * (double)cfg.value_dim();
  p.total = p.active = p.matmul_active + (double)cfg.conv_channels() * cfg.linear_conv_kernel_dim +
                       2 * nv + cfg.linear_value_head_dim;
  return p;
}

GatedDeltaNetSaved GatedDeltaNetLayer::carve_saved(Arena& a, int B, int T) const {
  GatedDeltaNetSaved s;
  float* base = a.take(GatedDeltaNetSaved::floats(cfg, B, T));  // the layer lays them out
  if (base) s.bind(base, cfg, B, T);
  return s;
}

GatedDeltaNetGradScratch GatedDeltaNetLayer::carve_grads(Arena& a, int N) const {
  GatedDeltaNetGradScratch g;
  float* base = a.take(GatedDeltaNetGradScratch::floats(cfg, N));
  if (base) g.bind(base, cfg, N);
  return g;
}

// Inference: the training buffers of one sequence of `rows` tokens.
GatedDeltaNetSaved GatedDeltaNetLayer::carve_infer(Arena& a, int rows, int) const {
  return carve_saved(a, 1, rows);
}

CacheSpec GatedDeltaNetLayer::cache_spec() const {
  CacheSpec s;
  s.state_f32_numbers = (size_t)cfg.linear_num_value_heads * cfg.linear_key_head_dim *
                        cfg.linear_value_head_dim;  // S [nv, dk, dv]
  s.state_numbers = (size_t)(cfg.linear_conv_kernel_dim - 1) * cfg.conv_channels();  // window
  s.cache = CacheKind::Recurrent;
  return s;
}

std::unique_ptr<LayerCache> GatedDeltaNetLayer::make_cache(int capacity,
                                                           const CacheStorage& st) const {
  return std::make_unique<RecurrentState>(capacity, cfg, st.dtype);
}

double GatedDeltaNetLayer::flops_per_token(FlopPass pass, int) const {
  const double forward = 8.0 * cfg.linear_num_value_heads * cfg.linear_key_head_dim *
                         cfg.linear_value_head_dim;
  return pass == FlopPass::Train ? 3.0 * forward : forward;
}

}  // namespace llm0
