// Pre-norm decoder block. See block.h.
#include "layers/block.h"

#include "core/check.h"
#include "ops/residual.h"

namespace llm0 {

void Block::forward(int B, int T, const int* positions, BlockSaved& s, const BlockScratch& g,
                    float* out) const {
  const int N = B * T;
  const size_t NC = (size_t)N * norm1.C;
  norm1.forward(s.ln1, s.ln1_mean, s.ln1_rstd, s.x_in, N);
  mixer->forward(s.ln1, B, T, positions, *s.mixer, *s.mixer_grads, g.branch);
  if (g.dropout.active()) dropout_apply(g.branch, g.branch, NC, g.dropout.sub(0));
  residual_add_to(s.x_mid, s.x_in, g.branch, NC);
  norm2.forward(s.ln2, s.ln2_mean, s.ln2_rstd, s.x_mid, N);
  ffn->forward(s.ln2, N, *s.ffn, g.branch);
  if (g.dropout.active()) dropout_apply(g.branch, g.branch, NC, g.dropout.sub(1));
  residual_add_to(out, s.x_mid, g.branch, NC);
}

void Block::backward(float* dstream, int B, int T, const int* positions, const BlockSaved& s,
                     const BlockScratch& g) const {
  const int N = B * T;
  const size_t NC = (size_t)N * norm1.C;
  // With dropout, a branch's output gradient is dstream through the forward's mask (g.branch is
  // free in backward).
  auto branch_grad = [&](int site) -> const float* {
    if (!g.dropout.active()) return dstream;
    dropout_apply(g.branch, dstream, NC, g.dropout.sub((uint64_t)site));
    return g.branch;
  };
  // out = x_mid + ffn(norm2(x_mid)): ∂L/∂x_mid = dstream + norm2ᵀ(ffnᵀ(dstream)).
  ffn->backward(g.dln, branch_grad(1), s.ln2, N, *s.ffn, *s.ffn_grads, g.aux_scale);
  norm2.backward(g.dnorm, g.dln, s.x_mid, s.ln2_mean, s.ln2_rstd, N);
  residual_add(dstream, g.dnorm, NC);
  // x_mid = x_in + mixer(norm1(x_in)).
  mixer->backward(g.dln, branch_grad(0), s.ln1, B, T, positions, *s.mixer, *s.mixer_grads);
  norm1.backward(g.dnorm, g.dln, s.x_in, s.ln1_mean, s.ln1_rstd, N);
  residual_add(dstream, g.dnorm, NC);
}

void Block::forward_cached(float* x, int N, const int* positions,
                           std::span<const BatchSegment> segs, const BlockInferScratch& g,
                           const InferOptions& opt, WorkCounters& counters) const {
  const size_t NC = (size_t)N * norm1.C;
  norm1.forward(g.ln, nullptr, nullptr, x, N);
  mixer->forward_cached(g.ln, N, positions, segs, *g.mixer, opt, g.branch, counters);
  residual_add(x, g.branch, NC);
  norm2.forward(g.ln, nullptr, nullptr, x, N);
  const Routing* routing = ffn->routing();
  const size_t E = routing ? (size_t)routing->num_experts() : 0;  // 0: dense
  if (E > 0 && counters.expert_tokens.size() != E) counters.expert_tokens.assign(E, 0);
  ffn->forward(g.ln, N, *g.ffn, g.branch, E > 0 ? counters.expert_tokens.data() : nullptr,
               opt.linear);
  residual_add(x, g.branch, NC);
}

}  // namespace llm0
