// The KV-cache lesson (see lesson_kv_cache.h): two real greedy generations per length, the
// engine's counters read after every forward_cached call.
#include "lesson/lesson_kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "core/cancel.h"
#include "core/check.h"
#include "model/infer_context.h"
#include "core/json_file.h"
#include "layers/mixer_factory.h"
#include "lesson/lesson_svg.h"
#include "model/init.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

// The layer whose counts the lesson shows per layer: the first with a KV cache (layer 0 unless
// the model starts with linear-attention layers, which keep a fixed state and project no K/V).
int counted_layer(const ModelConfig& c) {
  for (int il = 0; il < c.num_hidden_layers; ++il)
    if (!make_mixer(c, il)->cache_spec().fixed_state()) return il;
  LLM0_FAIL("the kv-cache lesson counts K/V vectors, and every layer of this model is linear "
            "attention (a fixed state, no KV cache): see `llm0 lesson hybrid-state`");
}

// Counters of the counted layer and of all layers, as a snapshot.
struct Snapshot {
  uint64_t kv0 = 0, qk0 = 0, kv = 0, qk = 0;
};

Snapshot snapshot(const Model& m, const InferContext& ctx) {
  const WorkCounters& l0 = ctx.layer_counters().at((size_t)counted_layer(m.config()));
  const WorkCounters t = ctx.total_counters();
  return {l0.kv_projected, l0.qk_scores, t.kv_projected, t.qk_scores};
}

// Greedy choice: argmax, the lowest id on ties (a fixed rule, TESTING.md §9).
int argmax(const float* x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

// One forward_cached call; fills the step's counters, logits row and greedy token. A step boundary:
// abandoned work (core/cancel.h: a server's client hung up) stops here.
void step(const Model& m, InferContext& ctx, const int* tokens, int n, ModelCache& cache,
          KvRun& run) {
  cancel_point();
  const int V = m.config().vocab_size;
  const Snapshot before = snapshot(m, ctx);
  std::vector<float> logits((size_t)V);  // [1, V]: the last position only
  m.forward_cached(tokens, n, cache, ctx, logits.data(), /*last_only=*/true);
  const Snapshot after = snapshot(m, ctx);
  KvStep s;
  s.tokens_fed = n;
  s.kv_per_layer = after.kv0 - before.kv0, s.qk_per_layer = after.qk0 - before.qk0;
  s.kv_total = after.kv - before.kv, s.qk_total = after.qk - before.qk;
  s.token = argmax(logits.data(), V);
  run.steps.push_back(s);
  run.tokens.push_back(s.token);
  run.logits.insert(run.logits.end(), logits.begin(), logits.end());
  run.kv_per_layer += s.kv_per_layer, run.kv_total += s.kv_total;
  run.qk_per_layer += s.qk_per_layer, run.qk_total += s.qk_total;
}

void check_lengths(const Model& m, int P, int G, const char* what) {
  LLM0_CHECK(P >= 1, "--prompt-len must be >= 1 token, got {}", P);
  LLM0_CHECK(G >= 1, "--generate must be >= 1 token, got {}", G);
  const long n = (long)P + G - 1;
  LLM0_CHECK(n <= m.config().max_position_embeddings,
             "{}: {} tokens exceed the model's max_position_embeddings={}", what, n,
             m.config().max_position_embeddings);
}

}  // namespace

std::vector<int> lesson_prompt(int prompt_len, int vocab_size) {
  std::vector<int> p((size_t)prompt_len);
  for (int i = 0; i < prompt_len; ++i) p[(size_t)i] = (int)((7L * i + 3) % vocab_size);
  return p;
}

KvRun run_generation(const Model& m, const std::vector<int>& prompt, int G, bool cached) {
  const int P = (int)prompt.size();
  check_lengths(m, P, G, "prompt + generated tokens");
  InferContext ctx(m);
  KvRun run;
  run.cached = cached;
  if (cached) {  // prefill P tokens, then feed each new token once (the last is never fed)
    ModelCache cache = m.new_cache(P + G - 1);
    step(m, ctx, prompt.data(), P, cache, run);
    for (int g = 1; g < G; ++g) step(m, ctx, &run.tokens.back(), 1, cache, run);
  } else {       // recompute: a fresh cache and the whole sequence every step
    std::vector<int> seq = prompt;
    for (int g = 0; g < G; ++g) {
      ModelCache cache = m.new_cache((int)seq.size());
      step(m, ctx, seq.data(), (int)seq.size(), cache, run);
      seq.push_back(run.tokens.back());
    }
  }
  return run;
}

std::vector<int> growth_lengths(int P, int up_to) {
  std::vector<int> n;
  for (int L = up_to; L >= P + 1 && n.size() < 6; L /= 2) n.insert(n.begin(), L);
  return n;
}

double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  LLM0_CHECK(x.size() == y.size() && x.size() >= 2, "a log-log fit needs >= 2 points, got {}",
             x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = (double)x.size();
  for (size_t i = 0; i < x.size(); ++i) {
    LLM0_CHECK(x[i] > 0 && y[i] > 0, "a log-log fit needs positive values, got ({}, {})", x[i],
               y[i]);
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  const double den = n * sxx - sx * sx;
  LLM0_CHECK(den > 0, "a log-log fit needs at least two different lengths");
  return (n * sxy - sx * sy) / den;
}

namespace {

// Per-layer counters summed over the first `steps` steps of a run.
KvGrowthRow prefix_counts(const KvRun& a, const KvRun& b, int steps) {
  KvGrowthRow r;
  for (int i = 0; i < steps; ++i) {
    r.kv_no_cache += a.steps[(size_t)i].kv_per_layer, r.qk_no_cache += a.steps[(size_t)i].qk_per_layer;
    r.kv_cache += b.steps[(size_t)i].kv_per_layer, r.qk_cache += b.steps[(size_t)i].qk_per_layer;
  }
  return r;
}

}  // namespace

void run_growth_table(Model& m, KvCacheLesson& l, int up_to, const std::string& model_name) {
  const int P = l.prompt_len;
  LLM0_CHECK(up_to > P, "--up-to ({}) must exceed --prompt-len ({})", up_to, P);
  check_lengths(m, P, up_to - P + 1, "--up-to");
  l.growth_model = model_name;
  l.growth_heads = m.config().num_attention_heads;
  l.growth.clear();
  // One generation per track to the longest length; the row for total length n is the counters
  // after its first n − P + 1 steps, which is exactly what a separate run to n would count
  // (the steps before do not depend on how many follow).
  const std::vector<int> prompt = lesson_prompt(P, m.config().vocab_size);
  const int G = up_to - P + 1;  // total tokens processed = P + G − 1 = up_to
  const KvRun a = run_generation(m, prompt, G, false), b = run_generation(m, prompt, G, true);
  for (int n : growth_lengths(P, up_to)) {
    KvGrowthRow r = prefix_counts(a, b, n - P + 1);
    r.length = n;
    l.growth.push_back(r);
  }
  if (l.growth.size() < 2) return;
  std::vector<double> x, kv0, kv1, qk0, qk1;
  for (const KvGrowthRow& r : l.growth) {
    x.push_back(r.length), kv0.push_back((double)r.kv_no_cache), kv1.push_back((double)r.kv_cache);
    qk0.push_back((double)r.qk_no_cache), qk1.push_back((double)r.qk_cache);
  }
  l.fit = {loglog_slope(x, kv0), loglog_slope(x, kv1), loglog_slope(x, qk0), loglog_slope(x, qk1)};
}

KvCacheLesson run_kv_cache_lesson(Model& m, const KvLessonOptions& o, const std::string& name) {
  const ModelConfig& c = m.config();
  LLM0_CHECK(o.up_to >= 0, "--up-to must be >= 0 tokens, got {}", o.up_to);
  LLM0_CHECK(o.up_to == 0 || o.up_to > o.prompt_len,
             "--up-to ({}) must exceed --prompt-len ({}) (or be 0 for no table)", o.up_to,
             o.prompt_len);
  check_lengths(m, o.prompt_len, o.generate, "--prompt-len + --generate - 1");
  if (o.up_to > 0) check_lengths(m, o.prompt_len, o.up_to - o.prompt_len + 1, "--up-to");
  KvCacheLesson l;
  l.model = name, l.num_hidden_layers = c.num_hidden_layers;
  l.num_attention_heads = c.num_attention_heads, l.num_key_value_heads = c.num_key_value_heads;
  l.sliding_window = c.layer(counted_layer(c)).sliding_window;
  l.vocab_size = c.vocab_size, l.prompt_len = o.prompt_len, l.generate = o.generate;
  l.prompt = lesson_prompt(o.prompt_len, c.vocab_size);
  l.without_cache = run_generation(m, l.prompt, o.generate, false);
  l.with_cache = run_generation(m, l.prompt, o.generate, true);
  for (size_t i = 0; i < l.with_cache.logits.size(); ++i)
    l.max_logit_diff = std::max(
        l.max_logit_diff, (double)std::fabs(l.with_cache.logits[i] - l.without_cache.logits[i]));
  l.same_tokens = l.with_cache.tokens == l.without_cache.tokens;
  std::vector<int> fed = l.prompt;  // what the cached run stored: the prompt, then G - 1 tokens
  fed.insert(fed.end(), l.with_cache.tokens.begin(), l.with_cache.tokens.end() - 1);
  l.cache_bytes = measure_kv_bytes(m, fed);
  if (o.up_to > 0) run_growth_table(m, l, o.up_to, name);
  return l;
}

std::unique_ptr<Model> lesson_model_from_config(const std::string& path, uint64_t seed) {
  const json j = read_json_file(path, "model config file");
  auto model = std::make_unique<Model>(ModelConfig::from_json(j, path));
  init_weights(*model, seed);
  double range = 0.02;  // init_weights' standard deviation
  if (j.contains("initializer_range")) {
    LLM0_CHECK(j.at("initializer_range").is_number() && j.at("initializer_range").get<double>() > 0,
               "{}: field \"initializer_range\" must be a positive number", path);
    range = j.at("initializer_range").get<double>();
  }
  // norm weights stay 1 and biases 0; every other parameter is a draw of std 0.02 (or the
  // smaller residual std), so one factor sets the whole scale.
  const float factor = (float)(range / 0.02);
  for (const ParamInfo& p : model->params().params()) {
    if (p.name.find("norm") != std::string::npos) continue;
    float* w = model->params().data() + p.offset;
    for (size_t i = 0; i < p.numel; ++i) w[i] *= factor;
  }
  return model;
}

namespace {
json run_json(const KvRun& r) {
  json steps = json::array();
  for (const KvStep& s : r.steps)
    steps.push_back({{"tokens_fed", s.tokens_fed}, {"kv_per_layer", s.kv_per_layer},
                     {"kv_total", s.kv_total}, {"qk_per_layer", s.qk_per_layer},
                     {"qk_total", s.qk_total}, {"token", s.token}});
  return {{"cached", r.cached}, {"steps", steps}, {"kv_per_layer", r.kv_per_layer},
          {"kv_total", r.kv_total}, {"qk_per_layer", r.qk_per_layer}, {"qk_total", r.qk_total},
          {"tokens", r.tokens}};
}
}  // namespace

json to_json(const KvCacheLesson& l) {
  json growth = json::array();
  for (const KvGrowthRow& r : l.growth)
    growth.push_back({{"length", r.length}, {"kv_no_cache", r.kv_no_cache},
                      {"kv_cache", r.kv_cache}, {"qk_no_cache", r.qk_no_cache},
                      {"qk_cache", r.qk_cache}});
  json j = {{"lesson", "kv-cache"}, {"model", l.model},
            {"num_hidden_layers", l.num_hidden_layers},
            {"num_attention_heads", l.num_attention_heads},
            {"num_key_value_heads", l.num_key_value_heads}, {"vocab_size", l.vocab_size},
            {"sliding_window", l.sliding_window},
            {"prompt_len", l.prompt_len}, {"generate", l.generate}, {"prompt", l.prompt},
            {"without_cache", run_json(l.without_cache)}, {"with_cache", run_json(l.with_cache)},
            {"max_logit_diff", l.max_logit_diff}, {"same_tokens", l.same_tokens},
            {"cache_bytes", kv_bytes_json(l.cache_bytes)}, {"growth_model", l.growth_model},
            {"growth_heads", l.growth_heads},
            {"growth", growth}};
  if (l.growth.size() >= 2)
    j["fit"] = {{"kv_no_cache", l.fit.kv_no_cache}, {"kv_cache", l.fit.kv_cache},
                {"qk_no_cache", l.fit.qk_no_cache}, {"qk_cache", l.fit.qk_cache}};
  return j;
}

std::string kv_growth_svg(const KvCacheLesson& l) {
  LLM0_CHECK(l.growth.size() >= 2, "the growth chart needs >= 2 lengths (raise --up-to)");
  std::vector<ChartSeries> s = {
      {format("K/V projected, no cache (slope {})", format_slope(l.fit.kv_no_cache)), "#d62728",
       false, {}},
      {format("K/V projected, cache (slope {})", format_slope(l.fit.kv_cache)), "#d62728", true,
       {}},
      {format("q·k scores, no cache (slope {})", format_slope(l.fit.qk_no_cache)), "#1f77b4",
       false, {}},
      {format("q·k scores, cache (slope {})", format_slope(l.fit.qk_cache)), "#1f77b4", true, {}}};
  for (const KvGrowthRow& r : l.growth) {
    const double n = r.length;
    s[0].points.emplace_back(n, (double)r.kv_no_cache);
    s[1].points.emplace_back(n, (double)r.kv_cache);
    s[2].points.emplace_back(n, (double)r.qk_no_cache);
    s[3].points.emplace_back(n, (double)r.qk_cache);
  }
  return loglog_chart(format("Work per layer of greedy generation, prompt {} tokens",
                             l.prompt_len),
                      "total length n = P + G - 1 (tokens)", "count per layer", s);
}

std::string format_slope(double slope) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", slope);
  return buf;
}

}  // namespace llm0::lesson
