// Activation plans. See plan.h.
#include "model/plan.h"

#include <algorithm>

namespace llm0 {

bool mlp_gate_up_stacked(std::span<const Block> blocks) {
  for (const Block& b : blocks)
    if (!b.ffn->gate_up_stacked()) return false;
  return true;
}

TrainPlan::TrainPlan(const ModelConfig& c, std::span<const Block> layers, int B_, int T_,
                     bool fuse_gate_up)
    : B(B_), T(T_), fuse_gate_up_(fuse_gate_up) {
  const size_t N = (size_t)B * T;
  tokens.resize(N), targets.resize(N), positions.resize(N);
  logits_max.resize(N), logits_sum.resize(N);
  for (size_t n = 0; n < N; ++n) positions[n] = (int)(n % (size_t)T);
  arena.begin_measure();
  carve(c, layers);
  arena.allocate();
  carve(c, layers);
}

void TrainPlan::carve(const ModelConfig& c, std::span<const Block> layers) {
  const size_t N = (size_t)B * T, C = c.hidden_size;
  const bool ln = c.norm == NormKind::LayerNorm;
  const int L = (int)layers.size();
  Arena& a = arena;
  blocks.clear();
  blocks.resize((size_t)L);
  for (int il = 0; il < L; ++il) {
    BlockSaved& s = blocks[(size_t)il];
    const Block& layer = layers[(size_t)il];
    s.x_in = a.take(N * C), s.ln1 = a.take(N * C), s.ln1_rstd = a.take(N);
    s.ln1_mean = ln ? a.take(N) : nullptr;
    s.mixer = layer.mixer->plan_saved(a, B, T);
    s.x_mid = a.take(N * C), s.ln2 = a.take(N * C), s.ln2_rstd = a.take(N);
    s.ln2_mean = ln ? a.take(N) : nullptr;
    s.ffn = layer.ffn->plan_saved(a, (int)N, fuse_gate_up_);
  }
  BlockScratch& g = scratch;
  g.branch = a.take(N * C), g.dln = a.take(N * C), g.dnorm = a.take(N * C);
  a.overlay(L, [&](int il) {
    blocks[(size_t)il].mixer_grads = layers[(size_t)il].mixer->plan_grads(a, (int)N);
  });
  a.overlay(L, [&](int il) {
    blocks[(size_t)il].ffn_grads = layers[(size_t)il].ffn->plan_grads(a, (int)N, fuse_gate_up_);
  });
  x_final = a.take(N * C), lnf = a.take(N * C), lnf_rstd = a.take(N);
  lnf_mean = ln ? a.take(N) : nullptr;
  logits = a.take(N * (size_t)c.vocab_size);
  dstream = a.take(N * C);
}

void InferScratch::ensure(const ModelConfig& c, std::span<const Block> layers, int n, int ctx,
                          int capacity) {
  // The chunk length sizes Gated DeltaNet's scratch (Model::set_linear_chunk_size may change it).
  if (n <= rows && ctx <= context && c.linear.chunk_size == chunk) return;
  chunk = c.linear.chunk_size;
  rows = std::max(rows, n);
  // The expanded MLA form needs [context, ...] buffers: grown geometrically up to the cache's
  // capacity, so decode does not reallocate every step.
  if (ctx > context) context = std::min(std::max({ctx, 2 * context, 2 * ctx}), capacity);
  positions.resize((size_t)rows);
  const size_t R = (size_t)rows, C = c.hidden_size;
  const int L = (int)layers.size();
  blocks.resize((size_t)L);
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0) arena.begin_measure(); else arena.allocate();
    float* ln = arena.take(R * C);
    float* branch = arena.take(R * C);
    for (BlockInferScratch& b : blocks) b.ln = ln, b.branch = branch;
    arena.overlay(L, [&](int il) {
      blocks[(size_t)il].mixer = layers[(size_t)il].mixer->plan_infer(arena, rows, context);
    });
    arena.overlay(L, [&](int il) {
      blocks[(size_t)il].ffn = layers[(size_t)il].ffn->plan_saved(arena, rows, false);
    });
    x = arena.take(R * C), lnf = arena.take(R * C);
  }
}

}  // namespace llm0
