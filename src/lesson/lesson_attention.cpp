// The attention lesson on the teaching world (see lesson_attention.h). Every projection goes
// through linear_forward and every softmax-weighted sum through attention_forward; this file
// only lays tensors out and reads the results.
#include "lesson/lesson_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"
#include "ops/attention.h"
#include "ops/matmul.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

// Per-head projections of the sentence, laid out as the attention op wants them.
struct Projected {
  int T = 0, H = 0, D = 0;
  std::vector<float> q, k, v;  // each [T, H, D]
};

// W [d, D] (course layout) -> [D, d] (PyTorch layout for linear_forward).
std::vector<float> transposed(const std::vector<float>& W, int d, int D) {
  std::vector<float> t((size_t)d * D);
  for (int i = 0; i < d; ++i)
    for (int o = 0; o < D; ++o) t[(size_t)o * d + i] = W[(size_t)i * D + o];
  return t;
}

// y [T, H, D] (head h slice) = x [T, d] · W [d, D].
void project_head(std::vector<float>& y, const std::vector<float>& x, const std::vector<float>& W,
                  int T, int d, int H, int D, int h) {
  std::vector<float> out((size_t)T * D);  // [T, D]
  const std::vector<float> Wt = transposed(W, d, D);
  linear_forward(out.data(), x.data(), Wt.data(), nullptr, T, d, D);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D; ++i) y[((size_t)t * H + h) * D + i] = out[(size_t)t * D + i];
}

Projected project(const TeachingWorld& w) {
  Projected p{w.T(), w.H(), w.d_head, {}, {}, {}};
  const size_t n = (size_t)p.T * p.H * p.D;
  p.q.assign(n, 0), p.k.assign(n, 0), p.v.assign(n, 0);
  for (int h = 0; h < p.H; ++h) {
    const WorldHead& hd = w.heads[(size_t)h];
    project_head(p.q, w.embeddings, hd.W_Q, p.T, w.d_model, p.H, p.D, h);
    project_head(p.k, w.embeddings, hd.W_K, p.T, w.d_model, p.H, p.D, h);
    project_head(p.v, w.embeddings, hd.W_V, p.T, w.d_model, p.H, p.D, h);
  }
  return p;
}

// The engine's causal attention: out [T, H, Dv] = softmax(q kᵀ/√D + mask [, sink]) vals,
// lse [H, T]; sinks [H] or null (−inf for a head without a sink: e^−inf adds nothing).
uint64_t attend(const Projected& p, const std::vector<float>& vals, int Dv,
                std::vector<float>& out, std::vector<float>& lse, const float* sinks = nullptr) {
  AttentionDims d;
  d.B = 1, d.Tq = p.T, d.Tk = p.T, d.H = p.H, d.Hkv = p.H, d.D = p.D, d.Dv = Dv, d.q_offset = 0;
  d.scale = 1.0f / std::sqrt((float)p.D);
  d.sinks = sinks;
  out.assign((size_t)p.T * p.H * Dv, 0);
  lse.assign((size_t)p.H * p.T, 0);
  return attention_forward(out.data(), lse.data(), p.q.data(), p.k.data(), vals.data(), d);
}

// Attention weights [H][T, T]: attend over one-hot value rows e_j, so out row t = (w_tj)_j.
std::vector<std::vector<double>> engine_weights(const Projected& p, std::vector<float>& lse,
                                                const float* sinks = nullptr) {
  std::vector<float> onehot((size_t)p.T * p.H * p.T, 0), out;  // [T, H, T]
  for (int j = 0; j < p.T; ++j)
    for (int h = 0; h < p.H; ++h) onehot[((size_t)j * p.H + h) * p.T + j] = 1;
  attend(p, onehot, p.T, out, lse, sinks);
  std::vector<std::vector<double>> w((size_t)p.H, std::vector<double>((size_t)p.T * p.T));
  for (int t = 0; t < p.T; ++t)
    for (int h = 0; h < p.H; ++h)
      for (int j = 0; j < p.T; ++j)
        w[(size_t)h][(size_t)t * p.T + j] = out[((size_t)t * p.H + h) * p.T + j];
  return w;
}

// Weights without the causal mask [H][T, T]: each row alone as the last query (q_offset = T − 1),
// so the engine's op lets it see all T keys; values are one-hot rows as in engine_weights.
std::vector<std::vector<double>> engine_weights_unmasked(const Projected& p) {
  std::vector<std::vector<double>> w((size_t)p.H, std::vector<double>((size_t)p.T * p.T));
  std::vector<float> onehot((size_t)p.T * p.H * p.T, 0), out, lse;  // [T, H, T]
  for (int j = 0; j < p.T; ++j)
    for (int h = 0; h < p.H; ++h) onehot[((size_t)j * p.H + h) * p.T + j] = 1;
  for (int t = 0; t < p.T; ++t) {
    AttentionDims d;
    d.B = 1, d.Tq = 1, d.Tk = p.T, d.H = p.H, d.Hkv = p.H, d.D = p.D, d.Dv = p.T;
    d.q_offset = p.T - 1;
    d.scale = 1.0f / std::sqrt((float)p.D);
    out.assign((size_t)p.H * p.T, 0), lse.assign((size_t)p.H, 0);
    attention_forward(out.data(), lse.data(), p.q.data() + (size_t)t * p.H * p.D, p.k.data(),
                      onehot.data(), d);
    for (int h = 0; h < p.H; ++h)
      for (int j = 0; j < p.T; ++j) w[(size_t)h][(size_t)t * p.T + j] = out[(size_t)h * p.T + j];
  }
  return w;
}

// Head h's slice of a [T, H, D] tensor as [T, D] doubles.
std::vector<double> head_slice(const std::vector<float>& x, int T, int H, int D, int h) {
  std::vector<double> s((size_t)T * D);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D; ++i) s[(size_t)t * D + i] = x[((size_t)t * H + h) * D + i];
  return s;
}

// Scores q_t·k_j/√D for every pair [T, T] (no mask): Q_h [T, D] · K_hᵀ through linear_forward.
std::vector<double> all_scores(const Projected& p, int h) {
  std::vector<float> q((size_t)p.T * p.D), k((size_t)p.T * p.D), s((size_t)p.T * p.T);
  for (int t = 0; t < p.T; ++t)
    for (int i = 0; i < p.D; ++i) {
      q[(size_t)t * p.D + i] = p.q[((size_t)t * p.H + h) * p.D + i];
      k[(size_t)t * p.D + i] = p.k[((size_t)t * p.H + h) * p.D + i];
    }
  linear_forward(s.data(), q.data(), k.data(), nullptr, p.T, p.D, p.T);
  const double scale = 1.0 / std::sqrt((double)p.D);
  std::vector<double> out(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = scale * s[i];
  return out;
}

// cos(x_t, x_j) of the raw embeddings [T, T].
std::vector<double> embedding_cosines(const TeachingWorld& w) {
  const int T = w.T(), d = w.d_model;
  auto row = [&](int t) {
    return std::vector<double>(w.embeddings.begin() + (ptrdiff_t)t * d,
                               w.embeddings.begin() + (ptrdiff_t)(t + 1) * d);
  };
  std::vector<double> c((size_t)T * T);
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < T; ++j) c[(size_t)t * T + j] = cosine(row(t), row(j));
  return c;
}

// Convex-combination check: each output row inside the per-dimension range of v_0..v_t.
void check_range(HeadLesson& hl, int T, int D) {
  hl.max_outside = 0;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < D; ++i) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (int j = 0; j <= t; ++j) {
        lo = std::min(lo, hl.values[(size_t)j * D + i]);
        hi = std::max(hi, hl.values[(size_t)j * D + i]);
      }
      const double o = hl.outputs[(size_t)t * D + i];
      if (!std::isfinite(o)) {  // overflowed scores: no claim about the range can hold
        hl.max_outside = std::numeric_limits<double>::infinity();
        continue;
      }
      hl.max_outside = std::max({hl.max_outside, lo - o, o - hi});
    }
  // float32 rounding of Σ w v may step outside by a few ulps of the range
  hl.outputs_inside_v_range = hl.max_outside <= 1e-5;
}

// gpt-oss sinks, run through the engine's kernel with the sink logits: softmax over [scores,
// sink], sink column dropped. The weight given to "nothing" is what the token weights leave: 1 − Σ_j.
void add_sink(HeadLesson& hl, double sink, const std::vector<double>& weights_with_sink, int T) {
  hl.sink_logit = sink;
  hl.weights_with_sink = weights_with_sink;
  hl.sink_weight.resize((size_t)T);
  for (int t = 0; t < T; ++t) {
    double kept = 0;
    for (int j = 0; j < T; ++j) kept += weights_with_sink[(size_t)t * T + j];
    hl.sink_weight[(size_t)t] = 1.0 - kept;
  }
}

// Row `t` of Σ_j w_j x_j for head h, where x is the value-like tensor given to attend().
std::vector<double> retrieved_row(const std::vector<float>& out, int t, int H, int D, int h) {
  std::vector<double> r((size_t)D);
  for (int i = 0; i < D; ++i) r[(size_t)i] = out[((size_t)t * H + h) * D + i];
  return r;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

// Row `query` of head h retrieving K (Σ w k) and V (Σ w v), and its weights.
void retrieve(const TeachingWorld& w, const WorldSwap& s, std::vector<double>& k,
              std::vector<double>& v, std::vector<double>& weights) {
  const Projected p = project(w);
  std::vector<float> out, lse;
  attend(p, p.k, p.D, out, lse);
  k = retrieved_row(out, s.query, p.H, p.D, s.head);
  attend(p, p.v, p.D, out, lse);
  v = retrieved_row(out, s.query, p.H, p.D, s.head);
  const auto all = engine_weights(p, lse);
  const auto& wh = all[(size_t)s.head];
  weights.assign(wh.begin() + (ptrdiff_t)s.query * p.T, wh.begin() + (ptrdiff_t)(s.query + 1) * p.T);
}

SwapLesson swap_test(const TeachingWorld& w, const AttentionLesson& l) {
  SwapLesson sl;
  sl.swap = *w.swap;
  const WorldSwap& s = sl.swap;
  const HeadLesson& hl = l.heads[(size_t)s.head];
  const int D = w.d_head;
  auto row = [D](const std::vector<double>& m, int t) {
    return std::vector<double>(m.begin() + (ptrdiff_t)t * D, m.begin() + (ptrdiff_t)(t + 1) * D);
  };
  sl.cos_k = cosine(row(hl.keys, s.a), row(hl.keys, s.b));
  sl.cos_v = cosine(row(hl.values, s.a), row(hl.values, s.b));
  const TeachingWorld sw = swapped(w, s.a, s.b);
  sl.tokens = sw.tokens;
  retrieve(w, s, sl.k_before, sl.v_before, sl.weights_before);
  retrieve(sw, s, sl.k_after, sl.v_after, sl.weights_after);
  sl.delta_k = distance(sl.k_before, sl.k_after);
  sl.delta_v = distance(sl.v_before, sl.v_after);
  sl.ratio = sl.delta_k > 0 ? sl.delta_v / sl.delta_k : std::numeric_limits<double>::infinity();
  return sl;
}

}  // namespace

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

AttentionLesson run_attention_lesson(const TeachingWorld& w) {
  AttentionLesson l;
  l.source = w.source, l.description = w.description, l.tokens = w.tokens;
  l.d_model = w.d_model, l.d_head = w.d_head;
  const Projected p = project(w);
  const int T = p.T, H = p.H, D = p.D;
  std::vector<float> out, lse;
  l.qk_scores = attend(p, p.v, D, out, lse);  // O = A V  [T, H, D]
  std::vector<float> lse_w, sinks((size_t)H, -INFINITY);  // −inf: this head has no sink
  const auto weights = engine_weights(p, lse_w);
  for (int h = 0; h < H; ++h)
    if (w.heads[(size_t)h].sink_logit) sinks[(size_t)h] = (float)*w.heads[(size_t)h].sink_logit;
  const auto with_sinks = engine_weights(p, lse_w, sinks.data());
  const auto unmasked = engine_weights_unmasked(p);
  for (int h = 0; h < H; ++h) {
    HeadLesson hl;
    hl.name = w.heads[(size_t)h].name;
    hl.queries = head_slice(p.q, T, H, D, h);
    hl.keys = head_slice(p.k, T, H, D, h);
    hl.values = head_slice(p.v, T, H, D, h);
    hl.scores = all_scores(p, h);
    hl.weights = weights[(size_t)h];
    hl.weights_unmasked = unmasked[(size_t)h];
    hl.outputs = head_slice(out, T, H, D, h);
    check_range(hl, T, D);
    if (w.heads[(size_t)h].sink_logit)
      add_sink(hl, *w.heads[(size_t)h].sink_logit, with_sinks[(size_t)h], T);
    l.heads.push_back(std::move(hl));
  }
  if (!w.W_O.empty()) {  // y [T, d_model] = concat_h(O_h) [T, H·D] · W_O [H·D, d_model]
    const std::vector<float> Wt = transposed(w.W_O, H * D, w.d_model);
    std::vector<float> y((size_t)T * w.d_model);
    linear_forward(y.data(), out.data(), Wt.data(), nullptr, T, H * D, w.d_model);
    l.projected.assign(y.begin(), y.end());
  }
  if (w.swap) l.swap = swap_test(w, l);
  l.embedding_cosines = embedding_cosines(w);
  if (w.split) l.split_heads = run_attention_lesson(split_world(w)).heads;
  l.sink_row = w.sink_row;
  l.cache_check = world_cache_check(w);
  return l;
}

}  // namespace llm0::lesson
