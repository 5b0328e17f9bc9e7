// Activation plans. See plan.h.
#include "model/plan.h"

#include <algorithm>

namespace llm0 {

bool mlp_gate_up_stacked(const ModelConfig& c, std::span<const Block> blocks) {
  if (c.mlp() != MlpKind::SwiGLU) return false;
  for (const Block& b : blocks) {
    if (b.ffn != FfnKind::Mlp) continue;
    const MlpWeights& w = b.mlp.w;
    const long FC = (long)b.mlp.F() * c.hidden_size;
    if (!w.gate_w.f32 || w.up_w.f32 != w.gate_w.f32 + FC || w.gate_b || w.up_b || !w.dgate_w ||
        w.dup_w != w.dgate_w + FC)
      return false;
  }
  return true;
}

TrainPlan::TrainPlan(const ModelConfig& c, int B_, int T_, bool fuse_gate_up)
    : B(B_), T(T_), fuse_gate_up_(fuse_gate_up) {
  const size_t N = (size_t)B * T;
  tokens.resize(N), targets.resize(N), positions.resize(N);
  for (size_t n = 0; n < N; ++n) positions[n] = (int)(n % (size_t)T);
  arena.begin_measure();
  carve(c);
  arena.allocate();
  carve(c);
}

namespace {

// A dense MLP's saved activations: fused, gate|up as one [N, 2F] buffer (rows 2F apart);
// otherwise gate (SwiGLU only) and up as separate [N, F] buffers.
void carve_mlp(Arena& a, size_t N, size_t F, bool swiglu, bool fused, MlpSaved& m) {
  if (fused) {
    m.gate = a.take(N * 2 * F), m.up = m.gate + F, m.ld = 2 * (long)F;
  } else {
    m.gate = swiglu ? a.take(N * F) : nullptr, m.up = a.take(N * F);
  }
  m.h = a.take(N * F);
}

void carve_attention(Arena& a, const ModelConfig& c, size_t N, AttentionSaved& t) {
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  const size_t H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const bool qk = c.use_qk_norm;
  t.q_raw = qk ? a.take(N * HD) : nullptr, t.k_raw = qk ? a.take(N * KD) : nullptr;
  t.q_rstd = qk ? a.take(N * H) : nullptr, t.k_rstd = qk ? a.take(N * Hkv) : nullptr;
  t.q = a.take(N * HD), t.k = a.take(N * KD), t.v = a.take(N * KD);
  t.attn = a.take(N * HD), t.lse = a.take(N * H);
  const bool gated = c.attn_output_gate;
  t.qg = gated ? a.take(N * 2 * HD) : nullptr, t.gate = gated ? a.take(N * HD) : nullptr;
  t.attn_gated = gated ? a.take(N * HD) : nullptr;
}

void carve_attention_grads(Arena& a, const ModelConfig& c, size_t N, AttentionGradScratch& g) {
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  const bool qk = c.use_qk_norm;
  g.dattn = a.take(N * HD), g.dq = a.take(N * HD), g.dk = a.take(N * KD), g.dv = a.take(N * KD);
  g.dq_raw = qk ? a.take(N * HD) : nullptr, g.dk_raw = qk ? a.take(N * KD) : nullptr;
  g.dqg = c.attn_output_gate ? a.take(N * 2 * HD) : nullptr;
  g.dgate = c.attn_output_gate ? a.take(N * HD) : nullptr;
}

// MLA sizes: H heads, D = dn + dr, dv, r, qr, R = r + dr (layers/mla.h).
struct MlaSizes {
  size_t H, HD, HDv, HE, r, R, qr;
  explicit MlaSizes(const ModelConfig& c)
      : H(c.num_attention_heads), HD(H * c.mla.qk_head_dim()), HDv(H * c.mla.v_head_dim),
        HE(H * (c.mla.qk_nope_head_dim + c.mla.v_head_dim)), r(c.mla.kv_lora_rank),
        R(r + c.mla.qk_rope_head_dim), qr(c.mla.q_lora_rank) {}
};

void carve_mla(Arena& a, const ModelConfig& c, size_t N, MlaSaved& t) {
  const MlaSizes z(c);
  t.cq = z.qr ? a.take(N * z.qr) : nullptr, t.cq_n = z.qr ? a.take(N * z.qr) : nullptr;
  t.cq_rstd = z.qr ? a.take(N) : nullptr;
  t.kv_a = a.take(N * z.R), t.c_raw = a.take(N * z.r), t.c = a.take(N * z.r), t.c_rstd = a.take(N);
  t.q = a.take(N * z.HD), t.k = a.take(N * z.HD), t.v = a.take(N * z.HDv);
  t.attn = a.take(N * z.HDv), t.lse = a.take(N * z.H);
}

void carve_mla_grads(Arena& a, const ModelConfig& c, size_t N, MlaGradScratch& g) {
  const MlaSizes z(c);
  g.dattn = a.take(N * z.HDv), g.dq = a.take(N * z.HD), g.dk = a.take(N * z.HD);
  g.dv = a.take(N * z.HDv), g.dkv = a.take(N * z.HE), g.dkv_a = a.take(N * z.R);
  g.dc = a.take(N * z.r), g.dc_raw = a.take(N * z.r);
  g.dcq = z.qr ? a.take(N * z.qr) : nullptr, g.dcq_raw = z.qr ? a.take(N * z.qr) : nullptr;
}

// Inference: `rows` new tokens, `context` cached positions (the expanded decode form's buffers).
void carve_mla_infer(Arena& a, const ModelConfig& c, size_t rows, size_t context,
                     MlaInferScratch& g) {
  const MlaSizes z(c);
  g.q = a.take(rows * z.HD);
  g.cq = z.qr ? a.take(rows * z.qr) : nullptr, g.cq_n = z.qr ? a.take(rows * z.qr) : nullptr;
  g.kv_a = a.take(rows * z.R), g.c_raw = a.take(rows * z.r), g.c = a.take(rows * z.r);
  g.attn = a.take(rows * z.HDv), g.q_abs = a.take(rows * z.H * z.R), g.o_lat = a.take(rows * z.H * z.r);
  g.kv = a.take(context * z.HE), g.k = a.take(context * z.HD), g.v = a.take(context * z.HDv);
}

// Gated DeltaNet buffers carved as one block (the layer lays them out, layers/gated_deltanet.h).
void carve_gdn(Arena& a, const ModelConfig& c, int B, int T, GatedDeltaNetSaved& t) {
  float* base = a.take(GatedDeltaNetSaved::floats(c.linear, B, T));
  if (base) t.bind(base, c.linear, B, T);
}

}  // namespace

void TrainPlan::carve(const ModelConfig& c) {
  const size_t N = (size_t)B * T, C = c.hidden_size, F = c.intermediate_size;
  const bool ln = c.norm == NormKind::LayerNorm, mla = c.mla.enabled();
  const bool swiglu = c.mlp() == MlpKind::SwiGLU;
  const bool fused_gate_up = swiglu && fuse_gate_up_;  // [N, 2F] gate|up rows (layers/mlp.h)
  Arena& a = arena;
  const auto take = [&a](size_t n) { return a.take(n); };
  blocks.assign((size_t)c.num_hidden_layers, BlockSaved{});
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    BlockSaved& s = blocks[(size_t)il];
    s.x_in = a.take(N * C), s.ln1 = a.take(N * C), s.ln1_rstd = a.take(N);
    s.ln1_mean = ln ? a.take(N) : nullptr;
    if (mla)
      carve_mla(a, c, N, s.mla);
    else if (c.layer(il).kind == LayerKind::LinearAttention)
      carve_gdn(a, c, B, T, s.gdn);
    else
      carve_attention(a, c, N, s.attn);
    s.x_mid = a.take(N * C), s.ln2 = a.take(N * C), s.ln2_rstd = a.take(N);
    s.ln2_mean = ln ? a.take(N) : nullptr;
    if (c.layer((int)(&s - blocks.data())).ffn == FfnKind::Moe)
      carve_moe(take, MoeSizes(c, N), s.moe);
    else
      carve_mlp(a, N, F, swiglu, fused_gate_up, s.mlp);
  }
  BlockScratch& g = scratch;
  g.branch = a.take(N * C), g.dln = a.take(N * C), g.dnorm = a.take(N * C);
  if (mla)
    carve_mla_grads(a, c, N, g.mla);
  else
    carve_attention_grads(a, c, N, g.attn);
  if (c.has_linear_layers()) {
    float* base = a.take(GatedDeltaNetGradScratch::floats(c.linear, (int)N));
    if (base) g.gdn.bind(base, c.linear, (int)N);
  }
  if (fused_gate_up) {  // [N, 2F] rows dgate | dup, as the saved gate | up
    g.mlp.dgate = a.take(N * 2 * F), g.mlp.dup = g.mlp.dgate + F, g.mlp.ld = 2 * (long)F;
  } else {
    g.mlp.dgate = a.take(N * F), g.mlp.dup = a.take(N * F);
  }
  g.mlp.dh = a.take(N * F);
  if (c.moe.enabled()) carve_moe_grads(take, MoeSizes(c, N), g.moe);
  x_final = a.take(N * C), lnf = a.take(N * C), lnf_rstd = a.take(N);
  lnf_mean = ln ? a.take(N) : nullptr;
  logits = a.take(N * (size_t)c.vocab_size);
  dstream = a.take(N * C);
}

void InferScratch::ensure(const ModelConfig& c, int n, int ctx, int capacity) {
  const bool mla = c.mla.enabled();
  if (n <= rows && ctx <= context) return;
  rows = std::max(rows, n);
  // The expanded MLA form needs [context, ...] buffers: grown geometrically up to the cache's
  // capacity, so decode does not reallocate every step.
  if (ctx > context) context = std::min(std::max({ctx, 2 * context, 2 * ctx}), capacity);
  positions.resize((size_t)rows);
  const size_t R = (size_t)rows, C = c.hidden_size, F = c.intermediate_size;
  const size_t HD = (size_t)c.num_attention_heads * c.head_dim;
  const size_t KD = (size_t)c.num_key_value_heads * c.head_dim;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0) arena.begin_measure(); else arena.allocate();
    BlockInferScratch& b = block;
    b.ln = arena.take(R * C), b.branch = arena.take(R * C);
    if (mla) {
      carve_mla_infer(arena, c, R, (size_t)context, b.mla);
    } else {
      AttentionInferScratch& a = b.attn;
      a.q = arena.take(R * HD), a.q_raw = arena.take(R * HD), a.k_raw = arena.take(R * KD);
      a.attn = arena.take(R * HD);
      a.rstd = arena.take(R * (size_t)(c.num_attention_heads + c.num_key_value_heads));
      // Sliding layers gather W − 1 cached positions before the new ones.
      // (a window wider than the positions holds at most max_position_embeddings − 1 of them)
      const size_t W = (size_t)std::min(c.sliding_window, c.max_position_embeddings);
      const size_t win = c.sliding_window > 0 ? W - 1 + R : 0;
      a.k_win = win ? arena.take(win * KD) : nullptr, a.v_win = win ? arena.take(win * KD) : nullptr;
      a.qg = c.attn_output_gate ? arena.take(R * 2 * HD) : nullptr;
      a.gate = c.attn_output_gate ? arena.take(R * HD) : nullptr;
      a.k_new = arena.take(R * KD), a.v_new = arena.take(R * KD);
    }
    if (c.has_linear_layers()) carve_gdn(arena, c, 1, (int)R, b.gdn);
    b.mlp.gate = arena.take(R * F), b.mlp.up = arena.take(R * F), b.mlp.h = arena.take(R * F);
    if (c.moe.enabled()) carve_moe([this](size_t k) { return arena.take(k); }, MoeSizes(c, R), b.moe);
    x = arena.take(R * C), lnf = arena.take(R * C);
  }
}

}  // namespace llm0
