// Activation plans. See plan.h.
#include "model/plan.h"

namespace llm0 {

TrainPlan::TrainPlan(const ModelConfig& c, int B_, int T_) : B(B_), T(T_) {
  const size_t N = (size_t)B * T;
  tokens.resize(N), targets.resize(N), positions.resize(N);
  for (size_t n = 0; n < N; ++n) positions[n] = (int)(n % (size_t)T);
  arena.begin_measure();
  carve(c);
  arena.allocate();
  carve(c);
}

void TrainPlan::carve(const ModelConfig& c) {
  const size_t N = (size_t)B * T, C = c.hidden_size, F = c.intermediate_size;
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  const size_t H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const bool qk = c.use_qk_norm, ln = c.norm == NormKind::LayerNorm;
  const bool swiglu = c.mlp() == MlpKind::SwiGLU;
  Arena& a = arena;
  blocks.assign((size_t)c.num_hidden_layers, BlockSaved{});
  for (BlockSaved& s : blocks) {
    s.x_in = a.take(N * C), s.ln1 = a.take(N * C), s.ln1_rstd = a.take(N);
    s.ln1_mean = ln ? a.take(N) : nullptr;
    AttentionSaved& t = s.attn;
    t.q_raw = qk ? a.take(N * HD) : nullptr, t.k_raw = qk ? a.take(N * KD) : nullptr;
    t.q_rstd = qk ? a.take(N * H) : nullptr, t.k_rstd = qk ? a.take(N * Hkv) : nullptr;
    t.q = a.take(N * HD), t.k = a.take(N * KD), t.v = a.take(N * KD);
    t.attn = a.take(N * HD), t.lse = a.take(N * H);
    s.x_mid = a.take(N * C), s.ln2 = a.take(N * C), s.ln2_rstd = a.take(N);
    s.ln2_mean = ln ? a.take(N) : nullptr;
    s.mlp.gate = swiglu ? a.take(N * F) : nullptr, s.mlp.up = a.take(N * F), s.mlp.h = a.take(N * F);
  }
  BlockScratch& g = scratch;
  g.branch = a.take(N * C), g.dln = a.take(N * C), g.dnorm = a.take(N * C);
  g.attn.dattn = a.take(N * HD), g.attn.dq = a.take(N * HD);
  g.attn.dk = a.take(N * KD), g.attn.dv = a.take(N * KD);
  g.attn.dq_raw = qk ? a.take(N * HD) : nullptr, g.attn.dk_raw = qk ? a.take(N * KD) : nullptr;
  g.mlp.dgate = a.take(N * F), g.mlp.dup = a.take(N * F), g.mlp.dh = a.take(N * F);
  x_final = a.take(N * C), lnf = a.take(N * C), lnf_rstd = a.take(N);
  lnf_mean = ln ? a.take(N) : nullptr;
  logits = a.take(N * (size_t)c.vocab_size);
  dstream = a.take(N * C);
}

void InferScratch::ensure(const ModelConfig& c, int n) {
  if (n <= rows) return;
  rows = n;
  positions.resize((size_t)n);
  const size_t R = (size_t)n, C = c.hidden_size, F = c.intermediate_size;
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0) arena.begin_measure(); else arena.allocate();
    BlockInferScratch& b = block;
    b.ln = arena.take(R * C), b.branch = arena.take(R * C);
    AttentionInferScratch& a = b.attn;
    a.q = arena.take(R * HD), a.q_raw = arena.take(R * HD), a.k_raw = arena.take(R * KD);
    a.attn = arena.take(R * HD);
    a.rstd = arena.take(R * (size_t)(c.num_attention_heads + c.num_key_value_heads));
    // Sliding layers gather W − 1 cached positions before the new ones.
    const size_t win = c.sliding_window > 0 ? (size_t)c.sliding_window - 1 + R : 0;
    a.k_win = win ? arena.take(win * KD) : nullptr, a.v_win = win ? arena.take(win * KD) : nullptr;
    b.mlp.gate = arena.take(R * F), b.mlp.up = arena.take(R * F), b.mlp.h = arena.take(R * F);
    x = arena.take(R * C), lnf = arena.take(R * C);
  }
}

}  // namespace llm0
