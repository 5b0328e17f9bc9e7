// Cache vs recompute on the teaching world (see lesson_world_cache.h).
#include "lesson/lesson_world_cache.h"

#include <algorithm>
#include <cmath>

#include "ops/attention.h"
#include "ops/matmul.h"

namespace llm0::lesson {

namespace {

// y [N, H·D] = x [N, d_model] · W_h [d_model, D] for every head h (course layout W [d, D]).
std::vector<float> project(const TeachingWorld& w, const float* x, int N,
                           std::vector<float> WorldHead::*which) {
  const int H = w.H(), D = w.d_head, d = w.d_model;
  std::vector<float> y((size_t)N * H * D), out((size_t)N * D), Wt((size_t)D * d);
  for (int h = 0; h < H; ++h) {
    const std::vector<float>& W = w.heads[(size_t)h].*which;
    for (int i = 0; i < d; ++i)  // [d, D] -> [D, d], linear_forward's PyTorch layout
      for (int o = 0; o < D; ++o) Wt[(size_t)o * d + i] = W[(size_t)i * D + o];
    linear_forward(out.data(), x, Wt.data(), nullptr, N, d, D);
    for (int t = 0; t < N; ++t)
      std::copy_n(out.data() + (size_t)t * D, D, y.data() + ((size_t)t * H + h) * D);
  }
  return y;
}

// out [Tq, H, D] for queries at positions q_offset.. over keys/values 0..Tk−1.
uint64_t attend(const float* q, const std::vector<float>& k, const std::vector<float>& v, int Tq,
                int Tk, int q_offset, int H, int D, float* out) {
  AttentionDims a;
  a.B = 1, a.Tq = Tq, a.Tk = Tk, a.H = H, a.Hkv = H, a.D = D, a.Dv = D, a.q_offset = q_offset;
  a.scale = 1.0f / std::sqrt((float)D);
  return attention_forward(out, nullptr, q, k.data(), v.data(), a);
}

}  // namespace

WorldCacheCheck world_cache_check(const TeachingWorld& w) {
  const int T = w.T(), H = w.H(), D = w.d_head, row = H * D;
  WorldCacheCheck c;
  c.heads = H, c.d_head = D;
  // Without a cache: every token's q, k, v at once, one causal pass.
  const float* x = w.embeddings.data();
  const std::vector<float> q = project(w, x, T, &WorldHead::W_Q);
  const std::vector<float> k = project(w, x, T, &WorldHead::W_K);
  const std::vector<float> v = project(w, x, T, &WorldHead::W_V);
  std::vector<float> out((size_t)T * row);
  c.qk_full = attend(q.data(), k, v, T, T, 0, H, D, out.data());
  c.kv_full = (uint64_t)T;
  c.full.assign(out.begin(), out.end());
  // With a cache: token t alone; its k, v appended, then q_t over positions 0..t.
  std::vector<float> k_cache, v_cache, o((size_t)row);
  for (int t = 0; t < T; ++t) {
    const float* xt = x + (size_t)t * w.d_model;
    const std::vector<float> qt = project(w, xt, 1, &WorldHead::W_Q);
    const std::vector<float> kt = project(w, xt, 1, &WorldHead::W_K);
    const std::vector<float> vt = project(w, xt, 1, &WorldHead::W_V);
    k_cache.insert(k_cache.end(), kt.begin(), kt.end());
    v_cache.insert(v_cache.end(), vt.begin(), vt.end());
    c.kv_cached += 1;
    c.qk_cached += attend(qt.data(), k_cache, v_cache, 1, t + 1, t, H, D, o.data());
    c.cached.insert(c.cached.end(), o.begin(), o.end());
  }
  for (size_t i = 0; i < c.full.size(); ++i)
    c.max_abs_diff = std::max(c.max_abs_diff, std::fabs(c.full[i] - c.cached[i]));
  return c;
}

nlohmann::json to_json(const WorldCacheCheck& c) {
  const size_t row = (size_t)c.heads * c.d_head;
  auto rows = [&](const std::vector<double>& m) {
    nlohmann::json r = nlohmann::json::array();
    for (size_t i = 0; row > 0 && i < m.size(); i += row)
      r.push_back(std::vector<double>(m.begin() + (ptrdiff_t)i, m.begin() + (ptrdiff_t)(i + row)));
    return r;
  };
  return {{"heads", c.heads}, {"d_head", c.d_head}, {"full", rows(c.full)},
          {"cached", rows(c.cached)}, {"max_abs_diff", c.max_abs_diff}, {"kv_full", c.kv_full},
          {"kv_cached", c.kv_cached}, {"qk_full", c.qk_full}, {"qk_cached", c.qk_cached}};
}

}  // namespace llm0::lesson
