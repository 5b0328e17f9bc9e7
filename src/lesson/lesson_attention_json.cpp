// The attention lesson as JSON (see lesson_attention_json.h).
#include "lesson/lesson_attention_json.h"

#include <cmath>

#include "lesson/lesson_figures.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {
json rows(const std::vector<double>& m, int cols) {
  json r = json::array();
  for (size_t i = 0; cols > 0 && i < m.size(); i += (size_t)cols)
    r.push_back(std::vector<double>(m.begin() + (ptrdiff_t)i, m.begin() + (ptrdiff_t)i + cols));
  return r;
}

json head_json(const HeadLesson& h, int T, int D) {
  json hj = {{"name", h.name}, {"queries", rows(h.queries, D)}, {"keys", rows(h.keys, D)},
             {"values", rows(h.values, D)}, {"scores", rows(h.scores, T)},
             {"weights", rows(h.weights, T)}, {"weights_unmasked", rows(h.weights_unmasked, T)},
             {"outputs", rows(h.outputs, D)},
             {"outputs_inside_v_range", h.outputs_inside_v_range},
             {"max_outside", h.max_outside}};
  if (h.sink_logit)
    hj["sink"] = {{"logit", *h.sink_logit}, {"sink_weight", h.sink_weight},
                  {"weights_with_sink", rows(h.weights_with_sink, T)}};
  return hj;
}
}  // namespace

json to_json(const AttentionLesson& l) {
  const int T = (int)l.tokens.size(), D = l.d_head;
  json j = {{"lesson", "attention"}, {"world", l.source}, {"description", l.description},
            {"tokens", l.tokens}, {"d_model", l.d_model}, {"d_head", l.d_head},
            {"qk_scores", l.qk_scores}, {"heads", json::array()}};
  for (const HeadLesson& h : l.heads) j["heads"].push_back(head_json(h, T, D));
  j["embedding_cosines"] = rows(l.embedding_cosines, T);
  if (!l.split_heads.empty()) {
    const int Ds = D / (int)l.split_heads.size();
    j["split_heads"] = json::array();
    for (const HeadLesson& h : l.split_heads) j["split_heads"].push_back(head_json(h, T, Ds));
  }
  if (l.sink_row) j["sink_row"] = l.tokens[(size_t)*l.sink_row];
  if (!l.heads.empty()) j["figures"] = to_json(course_figures(l), l.tokens);
  if (!l.projected.empty()) j["projected"] = rows(l.projected, l.d_model);
  j["cache_check"] = to_json(l.cache_check);
  if (l.swap) {
    const SwapLesson& s = *l.swap;
    j["swap_test"] = {{"swapped", {l.tokens[(size_t)s.swap.a], l.tokens[(size_t)s.swap.b]}},
                      {"query", l.tokens[(size_t)s.swap.query]}, {"head", s.swap.head},
                      {"tokens_after", s.tokens}, {"cos_k", s.cos_k}, {"cos_v", s.cos_v},
                      {"weights_before", s.weights_before}, {"weights_after", s.weights_after},
                      {"k_before", s.k_before}, {"k_after", s.k_after},
                      {"v_before", s.v_before}, {"v_after", s.v_after},
                      {"delta_k", s.delta_k}, {"delta_v", s.delta_v},
                      {"ratio", std::isfinite(s.ratio) ? json(s.ratio) : json(nullptr)}};
  }
  return j;
}

}  // namespace llm0::lesson
