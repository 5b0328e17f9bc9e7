// Feed-forward layer. See mlp.h.
#include "layers/mlp.h"

#include "ops/activation.h"
#include "ops/matmul.h"

namespace llm0 {

void MlpLayer::forward(const float* x, int N, MlpSaved& s, float* y) const {
  const int C = cfg->hidden_size, F = this->F();
  const size_t NF = (size_t)N * F;
  if (cfg->mlp() == MlpKind::SwiGLU) {
    const LinearOut gate_up[] = {{s.gate, w.gate_w, w.gate_b, F}, {s.up, w.up_w, w.up_b, F}};
    linear_forward_group(gate_up, x, N, C);  // gate, up: [N, F]
    swiglu_forward(s.h, s.gate, s.up, NF);
  } else {
    linear_forward(s.up, x, w.up_w, w.up_b, N, C, F);  // [N, F]
    gelu_forward(s.h, s.up, NF, cfg->gelu_tanh());
  }
  linear_forward(y, s.h, w.down_w, w.down_b, N, F, C);  // [N, C]
}

void MlpLayer::backward(float* dx, const float* dy, const float* x, int N, const MlpSaved& s,
                        const MlpGradScratch& g) const {
  const int C = cfg->hidden_size, F = this->F();
  const size_t NF = (size_t)N * F;
  linear_backward(g.dh, w.ddown_w, w.ddown_b, dy, s.h, w.down_w, N, F, C);
  if (cfg->mlp() == MlpKind::SwiGLU) {
    swiglu_backward(g.dgate, g.dup, g.dh, s.gate, s.up, NF);
    linear_backward(dx, w.dgate_w, w.dgate_b, g.dgate, x, w.gate_w, N, C, F);
    linear_backward(dx, w.dup_w, w.dup_b, g.dup, x, w.up_w, N, C, F, true);
  } else {
    gelu_backward(g.dup, g.dh, s.up, NF, cfg->gelu_tanh());
    linear_backward(dx, w.dup_w, w.dup_b, g.dup, x, w.up_w, N, C, F);
  }
}

}  // namespace llm0
