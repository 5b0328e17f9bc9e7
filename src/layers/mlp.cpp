// Feed-forward layer. See mlp.h.
#include "layers/mlp.h"

#include "core/check.h"
#include "ops/activation.h"
#include "ops/matmul.h"

namespace llm0 {

namespace {
// The fused layout multiplies by [gate_proj; up_proj] as one [2F, C] matrix: up_proj's weight
// (and gradient) must follow gate_proj's in memory, as the parameter table declares them.
void check_stacked(const MlpWeights& w, int F, int C, bool grads) {
  const long FC = (long)F * C;
  LLM0_CHECK(w.gate_w.f32 && w.up_w.f32 == w.gate_w.f32 + FC && !w.gate_b && !w.up_b &&
                 (!grads || w.dup_w == w.dgate_w + FC),
             "MLP: the fused gate|up layout needs float32 gate_proj and up_proj weights (and "
             "gradients) stored one after the other, without biases");
}
}  // namespace

void MlpLayer::forward(const float* x, int N, const MlpSaved& s, float* y, uint64_t*,
                       const LinearKernel& k) const {
  const int C = cfg->hidden_size, F = this->F();
  const size_t NF = (size_t)N * F;
  if (cfg->mlp() == MlpKind::SwiGLU) {
    if (s.ld == 2L * F) {  // [gate | up] [N, 2F] = x · [gate_proj; up_proj]ᵀ: one product
      check_stacked(w, F, C, false);
      linear_forward(s.gate, x, w.gate_w, nullptr, N, C, 2 * F, k);
    } else {
      const LinearOut gate_up[] = {{s.gate, w.gate_w, w.gate_b, F}, {s.up, w.up_w, w.up_b, F}};
      linear_forward_group(gate_up, x, N, C, k);  // gate, up: [N, F]
    }
    swiglu_forward_rows(s.h, s.gate, s.up, N, F, s.ld ? s.ld : F);
  } else {
    linear_forward(s.up, x, w.up_w, w.up_b, N, C, F, k);  // [N, F]
    gelu_forward(s.h, s.up, NF, cfg->gelu_tanh());
  }
  linear_forward(y, s.h, w.down_w, w.down_b, N, F, C, k);  // [N, C]
}

void MlpLayer::backward(float* dx, const float* dy, const float* x, int N, const MlpSaved& s,
                        const MlpGradScratch& g, float) const {
  const int C = cfg->hidden_size, F = this->F();
  const size_t NF = (size_t)N * F;
  linear_backward(g.dh, w.ddown_w, w.ddown_b, dy, s.h, w.down_w, N, F, C);
  if (cfg->mlp() == MlpKind::SwiGLU) {
    LLM0_CHECK(s.ld == g.ld, "MLP: saved gate|up row stride {} differs from the gradient's {}",
               s.ld, g.ld);
    swiglu_backward_rows(g.dgate, g.dup, g.dh, s.gate, s.up, N, F, g.ld ? g.ld : F);
    if (g.ld == 2L * F) {  // dx = [dgate | dup] · [gate_proj; up_proj], one product each
      check_stacked(w, F, C, true);
      linear_backward(dx, w.dgate_w, nullptr, g.dgate, x, w.gate_w, N, C, 2 * F);
    } else {
      linear_backward(dx, w.dgate_w, w.dgate_b, g.dgate, x, w.gate_w, N, C, F);
      linear_backward(dx, w.dup_w, w.dup_b, g.dup, x, w.up_w, N, C, F, true);
    }
  } else {
    gelu_backward(g.dup, g.dh, s.up, NF, cfg->gelu_tanh());
    linear_backward(dx, w.dup_w, w.dup_b, g.dup, x, w.up_w, N, C, F);
  }
}

}  // namespace llm0
