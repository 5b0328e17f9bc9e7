// Plain-text lesson reports (see lesson_text.h).
#include "lesson/lesson_text.h"

#include <cmath>
#include <cstdio>

#include "core/check.h"
#include "ledger/kv_format.h"
#include "lesson/lesson_figures.h"

namespace llm0::lesson {

namespace {

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string general(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string vec_text(const std::vector<double>& v, int decimals = 3) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fixed(v[i], decimals);
  return s + "]";
}

std::string row_of(const std::vector<double>& m, int cols, int r, int decimals = 3) {
  return vec_text(std::vector<double>(m.begin() + (ptrdiff_t)r * cols,
                                      m.begin() + (ptrdiff_t)(r + 1) * cols), decimals);
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const std::string& t : tokens) s += t;
  return s;
}

std::string n_text(uint64_t n) { return format_thousands(n); }

// One weight table: rows = queries, columns = keys, in percent; Σ column and output column.
std::string weight_table(const AttentionLesson& l, const std::vector<double>& w,
                         const std::vector<double>* out, int D) {
  const int T = (int)l.tokens.size();
  std::string s = "  " + pad("query \\ key", 12);
  for (const std::string& t : l.tokens) s += pad(t, 8, true);
  s += "  |      Σ" + std::string(out ? "   output Σ_j w_j·v_j" : "") + "\n";
  for (int t = 0; t < T; ++t) {
    s += "  " + pad(l.tokens[(size_t)t], 12);
    double sum = 0;
    for (int j = 0; j < T; ++j) {
      const double p = 100.0 * w[(size_t)t * T + j];
      sum += p;
      s += pad(j <= t ? fixed(p, 1) : ".", 8, true);
    }
    s += "  | " + pad(fixed(sum, 1), 6, true);
    if (out) s += "   " + row_of(*out, D, t);
    s += "\n";
  }
  return s;
}

std::string sink_text(const AttentionLesson& l, const HeadLesson& h) {
  const int T = (int)l.tokens.size();
  std::string s = format("\nHead \"{}\" with a sink logit of {}: softmax over [scores, sink], the "
                         "sink column dropped (the engine's attention kernel run with the sink logit):\n",
                         h.name, fixed(*h.sink_logit, 2));
  s += weight_table(l, h.weights_with_sink, nullptr, 0);
  s += "  weight given to \"nothing\":";
  for (int t = 0; t < T; ++t)
    s += format("  {} {}%", l.tokens[(size_t)t], fixed(100.0 * h.sink_weight[(size_t)t], 1));
  return s + "\n";
}

std::string heads_side_by_side(const AttentionLesson& l, int row) {
  const int T = (int)l.tokens.size();
  std::string s = format("\nEach head's weights for the row of \"{}\" (%):\n",
                         l.tokens[(size_t)row]);
  for (const HeadLesson& h : l.heads) {
    s += "  " + pad(h.name, 10);
    for (int j = 0; j <= row; ++j)
      s += format("  {} {}", l.tokens[(size_t)j], fixed(100.0 * h.weights[(size_t)row * T + j], 1));
    s += "\n";
  }
  return s;
}

std::string swap_text(const AttentionLesson& l) {
  const SwapLesson& w = *l.swap;
  const std::string& a = l.tokens[(size_t)w.swap.a];
  const std::string& b = l.tokens[(size_t)w.swap.b];
  const std::string& q = l.tokens[(size_t)w.swap.query];
  std::string s = format("\nSwap test (head \"{}\", row \"{}\"): {} -> {}\n",
                         l.heads[(size_t)w.swap.head].name, q, joined(l.tokens), joined(w.tokens));
  s += format("  cos(k_{}, k_{}) = {}    cos(v_{}, v_{}) = {}\n", a, b, fixed(w.cos_k, 3), a, b,
              fixed(w.cos_v, 3));
  s += format("  weights of \"{}\" before {}  after {}\n", q, vec_text(w.weights_before, 3),
              vec_text(w.weights_after, 3));
  s += format("  retrieving K (Σ w·k): {} -> {}   change {}\n", vec_text(w.k_before),
              vec_text(w.k_after), fixed(w.delta_k, 4));
  s += format("  retrieving V (Σ w·v): {} -> {}   change {}\n", vec_text(w.v_before),
              vec_text(w.v_after), fixed(w.delta_v, 4));
  s += format("  ratio change(V) / change(K) = {}: the names look alike to attention (K), but what "
              "it retrieves (V) tells them apart\n",
              std::isfinite(w.ratio) ? fixed(w.ratio, 2) : std::string("infinite"));
  return s;
}

std::string ranked_text(const AttentionLesson& l, const std::vector<Ranked>& r, int decimals) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i)
    s += (i ? " > " : "") + l.tokens[(size_t)r[i].token] + " " + fixed(r[i].value, decimals);
  return s;
}

std::string percents(const AttentionLesson& l, const std::vector<double>& w, int decimals) {
  std::string s;
  for (size_t j = 0; j < w.size(); ++j)
    s += format("  {} {}%", l.tokens[j], fixed(100.0 * w[j], decimals));
  return s;
}

// The course's figures in one place, at the course's precision (definitions:
// docs/teaching-world.md).
std::string figures_text(const AttentionLesson& l) {
  const CourseFigures f = course_figures(l);
  const std::string& q = l.tokens[(size_t)f.row];
  std::string s = format("\nCourse figures (head \"{}\", row \"{}\"):\n", l.heads[0].name, q);
  s += format("  causal mask:{}\n", percents(l, f.causal, 1));
  s += format("  no mask:    {}\n", percents(l, f.unmasked, 1));
  s += format("  raw embeddings, cos(x_{}, x_j): {}\n", q, ranked_text(l, f.by_embedding, 3));
  s += format("  after the Q/K projections, q_{}·k_j/√d_h: {}\n", q,
              ranked_text(l, f.by_score, 2));
  if (l.swap) {
    const SwapLesson& w = *l.swap;
    s += format("  swap test: cos(k) {}, cos(v) {}; the two sentences differ by {} retrieving V, "
                "{} retrieving K ({}×)\n", fixed(w.cos_k, 3), fixed(w.cos_v, 3),
                fixed(w.delta_v, 3), fixed(w.delta_k, 3),
                std::isfinite(w.ratio) ? fixed(w.ratio, 2) : std::string("infinite"));
  }
  if (!f.split.empty()) {
    s += format("  {} heads (head 0 split by columns, scale 1/√{}):", f.split.size(),
                l.d_head / (int)f.split.size());
    for (const SplitPick& p : f.split)
      s += format("  head {} {}% on {}", p.head, fixed(100.0 * p.weight, 1),
                  l.tokens[(size_t)p.token]);
    s += "\n";
  }
  if (f.sink_row) {
    std::string sc;
    for (size_t j = 0; j < f.sink_scores.size(); ++j)
      sc += (j ? ", " : "") + fixed(f.sink_scores[j], 2);
    s += format("  sink row \"{}\": scores {} ->{}\n", l.tokens[(size_t)*f.sink_row], sc,
                percents(l, f.sink_weights, 0));
    if (f.sink_nothing)
      s += format("    with the sink logit {}:{}, \"nothing\" {}%\n",
                  fixed(*l.heads[0].sink_logit, 2), percents(l, f.sink_weights_with_sink, 0),
                  fixed(100.0 * *f.sink_nothing, 0));
  }
  return s;
}

}  // namespace

int display_width(const std::string& s) {
  int w = 0;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = (unsigned char)s[i];
    const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    unsigned cp = len == 1 ? c : c & (0x3F >> (len - 1));
    for (int k = 1; k < len && i + (size_t)k < s.size(); ++k)
      cp = (cp << 6) | ((unsigned char)s[i + (size_t)k] & 0x3F);
    // wide: Hangul Jamo, CJK radicals .. Yi, Hangul syllables, CJK compatibility, fullwidth forms
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0x20000 && cp <= 0x3FFFD);
    w += wide ? 2 : 1;
    i += (size_t)len;
  }
  return w;
}

std::string pad(const std::string& s, int width, bool left) {
  const int n = width - display_width(s);
  if (n <= 0) return s;
  return left ? std::string((size_t)n, ' ') + s : s + std::string((size_t)n, ' ');
}

std::string attention_text(const AttentionLesson& l) {
  const int D = l.d_head;
  std::string s = format("Teaching world {}: {}\n", l.source, joined(l.tokens));
  if (!l.description.empty()) s += "  " + l.description + "\n";
  s += format("  T = {} tokens, d_model = {}, {} head(s) of d_head = {}; the engine's attention op "
              "computed {} q·k scores (causal pairs × heads)\n",
              l.tokens.size(), l.d_model, l.heads.size(), D, l.qk_scores);
  for (const HeadLesson& h : l.heads) {
    s += format("\nHead \"{}\": causal attention weights (%, row = query, column = key) and "
                "outputs\n", h.name);
    s += weight_table(l, h.weights, &h.outputs, D);
    s += format("  convex combination: every output inside the per-dimension range of the "
                "visible V rows: {} (max outside {})\n",
                h.outputs_inside_v_range ? "yes" : "NO", general(h.max_outside));
  }
  for (const HeadLesson& h : l.heads)
    if (h.sink_logit) s += sink_text(l, h);
  if (l.heads.size() > 1)
    s += heads_side_by_side(l, l.swap ? l.swap->swap.query : (int)l.tokens.size() - 1);
  if (!l.projected.empty()) {
    s += "\nOutput after W_O (concat of heads · W_O, [T, d_model]):\n";
    for (size_t t = 0; t < l.tokens.size(); ++t)
      s += "  " + pad(l.tokens[t], 8) + row_of(l.projected, l.d_model, (int)t) + "\n";
  }
  if (l.swap) s += swap_text(l);
  for (const HeadLesson& h : l.split_heads) {
    s += format("\nSplit head \"{}\" (d_head {}): causal attention weights (%)\n", h.name,
                l.d_head / (int)l.split_heads.size());
    s += weight_table(l, h.weights, nullptr, 0);
  }
  s += figures_text(l);
  return s;
}

namespace {

std::string sum_text(const KvRun& r) {
  std::string s;
  for (size_t i = 0; i < r.steps.size(); ++i)
    s += (i ? " + " : "") + n_text(r.steps[i].kv_per_layer);
  return s + " = " + n_text(r.kv_per_layer);
}

std::string tokens_text(const std::vector<int>& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.size(); ++i) s += (i ? " " : "") + std::to_string(t[i]);
  return s + "]";
}

std::string steps_table(const KvCacheLesson& l) {
  std::string s = "\n  step | without cache: fed  K/V/layer  q·k/layer  token | with cache: fed  "
                  "K/V/layer  q·k/layer  token\n";
  for (size_t i = 0; i < l.with_cache.steps.size(); ++i) {
    const KvStep &a = l.without_cache.steps[i], &b = l.with_cache.steps[i];
    s += format("  {} |{}{}{}{} |{}{}{}{}\n", pad(std::to_string(i + 1), 4, true),
                pad(n_text((uint64_t)a.tokens_fed), 20, true), pad(n_text(a.kv_per_layer), 11, true),
                pad(n_text(a.qk_per_layer), 11, true), pad(std::to_string(a.token), 7, true),
                pad(n_text((uint64_t)b.tokens_fed), 16, true), pad(n_text(b.kv_per_layer), 11, true),
                pad(n_text(b.qk_per_layer), 11, true), pad(std::to_string(b.token), 7, true));
  }
  const KvRun &a = l.without_cache, &b = l.with_cache;
  s += format("  total|{}{}{}{} |{}{}{}\n", pad("", 20), pad(n_text(a.kv_per_layer), 11, true),
              pad(n_text(a.qk_per_layer), 11, true), pad("", 7), pad("", 16),
              pad(n_text(b.kv_per_layer), 11, true), pad(n_text(b.qk_per_layer), 11, true));
  s += format("  (q·k counts every query head: {} per layer)\n", l.num_attention_heads);
  s += format("  all {} layers: K/V {} vs {}, q·k scores {} vs {}\n", l.num_hidden_layers,
              n_text(a.kv_total), n_text(b.kv_total), n_text(a.qk_total), n_text(b.qk_total));
  return s;
}

std::string growth_table(const KvCacheLesson& l) {
  std::string s = format("\nGrowth with the total length n = P + G - 1 (prompt {} tokens, counts "
                         "per layer, q·k over its {} query heads; model {}):\n  {}{}{}{}{}\n",
                         l.prompt_len, l.growth_heads, l.growth_model, pad("n", 6, true),
                         pad("K/V no cache", 15, true), pad("K/V cache", 12, true),
                         pad("q·k no cache", 15, true), pad("q·k cache", 12, true));
  for (const KvGrowthRow& r : l.growth)
    s += format("  {}{}{}{}{}\n", pad(std::to_string(r.length), 6, true),
                pad(n_text(r.kv_no_cache), 15, true), pad(n_text(r.kv_cache), 12, true),
                pad(n_text(r.qk_no_cache), 15, true), pad(n_text(r.qk_cache), 12, true));
  if (l.growth.size() >= 2)
    s += format("  fitted order (least-squares slope of log count vs log n): K/V {} without vs {} "
                "with the cache (∝ n² vs n); q·k {} vs {} (∝ n³ vs n²)\n",
                format_slope(l.fit.kv_no_cache), format_slope(l.fit.kv_cache),
                format_slope(l.fit.qk_no_cache), format_slope(l.fit.qk_cache));
  if (l.sliding_window > 0)
    s += format("  layer 0 is a sliding-window layer (W = {}): a query sees at most W keys, so once "
                "n > W the q·k scores with the cache grow ∝ n·W (order 1, not 2) and its ring cache "
                "holds min(n, W) positions however long the sequence\n", l.sliding_window);
  return s;
}

}  // namespace

std::string kv_cache_text(const KvCacheLesson& l) {
  std::string s = format("Model {}: {} layers, {} q heads, {} KV heads, vocab {}\n", l.model,
                         l.num_hidden_layers, l.num_attention_heads, l.num_key_value_heads,
                         l.vocab_size);
  s += format("Greedy generation of G = {} tokens after a prompt of P = {} tokens {}, run "
              "without the cache (whole sequence every step) and with it (prefill, then one token "
              "per step); the engine's counters:\n", l.generate, l.prompt_len,
              tokens_text(l.prompt));
  s += steps_table(l);
  s += format("\n  K/V vectors projected per layer: without cache {}, with cache {}\n",
              sum_text(l.without_cache), sum_text(l.with_cache));
  char diff[32];
  std::snprintf(diff, sizeof diff, "%.3g", l.max_logit_diff);
  s += format("  max |logit difference| between the two runs: {} ({} 1e-4)\n", diff,
              l.max_logit_diff < 1e-4 ? "<" : ">=");
  s += format("  greedy tokens identical: {}  {} vs {}\n", l.same_tokens ? "yes" : "NO",
              tokens_text(l.without_cache.tokens), tokens_text(l.with_cache.tokens));
  s += kv_bytes_text(l.cache_bytes);
  if (!l.growth.empty()) s += growth_table(l);
  return s;
}

std::string shapes_text(const ShapesLesson& l) {
  std::string s = format("{} {}: T = {} tokens, d_model = {}, {} heads ({} KV heads), d_h = {}{}{}\n",
                         l.kind, l.source, l.T, l.d_model, l.num_attention_heads,
                         l.num_key_value_heads, l.d_qk,
                         l.d_v != l.d_qk ? format(", d_v = {}", l.d_v) : std::string(),
                         l.mla ? " (MLA: d_h = qk_nope_head_dim + qk_rope_head_dim)" : "");
  for (const ShapeStep& st : l.steps) {
    std::string line = "  " + pad(st.formula, 26) + shape_text(st.left);
    if (!st.right.empty()) line += " × " + shape_text(st.right);
    line += " -> " + shape_text(st.result);
    s += pad(line, 64);
    s += st.contracts.empty()
             ? std::string("  no contraction: each row normalised over its visible keys")
             : format("  contracts {} = {}, {} multiply-adds", st.contracts, st.contracted,
                      n_text(st.multiply_adds));
    s += "\n";
  }
  return s;
}

}  // namespace llm0::lesson
