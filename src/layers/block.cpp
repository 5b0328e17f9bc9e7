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
  if (kind == LayerKind::LatentAttention)
    mla.forward(s.ln1, B, T, positions, s.mla, g.mla, g.branch);
  else if (kind == LayerKind::LinearAttention)
    gdn.forward(s.ln1, B, T, s.gdn, g.branch);
  else
    attn.forward(s.ln1, B, T, positions, s.attn, g.branch);
  residual_add_to(s.x_mid, s.x_in, g.branch, NC);
  norm2.forward(s.ln2, s.ln2_mean, s.ln2_rstd, s.x_mid, N);
  if (ffn == FfnKind::Moe)
    moe.forward(s.ln2, N, s.moe, g.branch);
  else
    mlp.forward(s.ln2, N, s.mlp, g.branch);
  residual_add_to(out, s.x_mid, g.branch, NC);
}

void Block::backward(float* dstream, int B, int T, const int* positions, const BlockSaved& s,
                     const BlockScratch& g) const {
  const int N = B * T;
  const size_t NC = (size_t)N * norm1.C;
  // out = x_mid + mlp(norm2(x_mid)): ∂L/∂x_mid = dstream + norm2ᵀ(mlpᵀ(dstream)).
  if (ffn == FfnKind::Moe)
    moe.backward(g.dln, dstream, s.ln2, N, s.moe, g.moe);
  else
    mlp.backward(g.dln, dstream, s.ln2, N, s.mlp, g.mlp);
  norm2.backward(g.dnorm, g.dln, s.x_mid, s.ln2_mean, s.ln2_rstd, N);
  residual_add(dstream, g.dnorm, NC);
  // x_mid = x_in + attn(norm1(x_in)).
  if (kind == LayerKind::LatentAttention)
    mla.backward(g.dln, dstream, s.ln1, B, T, positions, s.mla, g.mla);
  else if (kind == LayerKind::LinearAttention)
    gdn.backward(g.dln, dstream, s.ln1, B, T, s.gdn, g.gdn);
  else
    attn.backward(g.dln, dstream, s.ln1, B, T, positions, s.attn, g.attn);
  norm1.backward(g.dnorm, g.dln, s.x_in, s.ln1_mean, s.ln1_rstd, N);
  residual_add(dstream, g.dnorm, NC);
}

void Block::forward_cached(float* x, int Tn, int pos, const int* positions, LayerCache& cache,
                           const BlockInferScratch& g, MlaDecode mla_form,
                           WorkCounters& counters) const {
  const size_t NC = (size_t)Tn * norm1.C;
  norm1.forward(g.ln, nullptr, nullptr, x, Tn);
  if (kind == LayerKind::LatentAttention)
    mla.forward_cached(g.ln, Tn, pos, positions, cache, g.mla, mla_form, g.branch, counters);
  else if (kind == LayerKind::LinearAttention)
    gdn.forward_cached(g.ln, Tn, pos, cache, g.gdn, g.branch);
  else
    attn.forward_cached(g.ln, Tn, pos, positions, cache, g.attn, g.branch, counters);
  residual_add(x, g.branch, NC);
  ffn_cached(x, Tn, g, counters);
}

void Block::forward_batch(float* x, int N, const int* positions,
                          std::span<const BatchSegment> segs, const BlockInferScratch& g,
                          WorkCounters& counters) const {
  norm1.forward(g.ln, nullptr, nullptr, x, N);
  if (kind == LayerKind::LatentAttention)
    mla.forward_batch(g.ln, N, positions, segs, g.mla, g.branch, counters);
  else if (kind == LayerKind::LinearAttention)
    gdn.forward_batch(g.ln, N, segs, g.gdn, g.branch);
  else
    attn.forward_batch(g.ln, N, positions, segs, g.attn, g.branch, counters);
  residual_add(x, g.branch, (size_t)N * norm1.C);
  ffn_cached(x, N, g, counters);
}

void Block::ffn_cached(float* x, int N, const BlockInferScratch& g, WorkCounters& counters) const {
  norm2.forward(g.ln, nullptr, nullptr, x, N);
  if (ffn == FfnKind::Moe) {
    const size_t E = (size_t)moe.cfg->moe.num_experts;
    if (counters.expert_tokens.size() != E) counters.expert_tokens.assign(E, 0);
    MoeSaved m = g.moe;
    moe.forward(g.ln, N, m, g.branch, counters.expert_tokens.data());
  } else {
    MlpSaved m = g.mlp;
    mlp.forward(g.ln, N, m, g.branch);
  }
  residual_add(x, g.branch, (size_t)N * norm1.C);
}

}  // namespace llm0
