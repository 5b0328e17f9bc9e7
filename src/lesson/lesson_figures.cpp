// Selecting the course's figures out of the attention lesson (see lesson_figures.h).
#include "lesson/lesson_figures.h"

#include <algorithm>

#include "core/check.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

// Row `r` of a [T, T] matrix, its first `n` entries.
std::vector<double> row_prefix(const std::vector<double>& m, int T, int r, int n) {
  return std::vector<double>(m.begin() + (ptrdiff_t)r * T, m.begin() + (ptrdiff_t)r * T + n);
}

// All positions ranked by `values`, highest first (ties keep sentence order).
std::vector<Ranked> ranked(const std::vector<double>& values) {
  std::vector<Ranked> r;
  for (size_t j = 0; j < values.size(); ++j) r.push_back({(int)j, values[j]});
  std::stable_sort(r.begin(), r.end(), [](const Ranked& a, const Ranked& b) {
    return a.value > b.value;
  });
  return r;
}

}  // namespace

CourseFigures course_figures(const AttentionLesson& l) {
  LLM0_CHECK(!l.heads.empty(), "{}: the attention lesson has no heads", l.source);
  const int T = (int)l.tokens.size();
  const HeadLesson& h = l.heads[0];
  CourseFigures f;
  f.row = l.swap ? l.swap->swap.query : T - 1;
  f.causal = row_prefix(h.weights, T, f.row, f.row + 1);
  f.unmasked = row_prefix(h.weights_unmasked, T, f.row, T);
  f.by_embedding = ranked(row_prefix(l.embedding_cosines, T, f.row, T));
  f.by_score = ranked(row_prefix(h.scores, T, f.row, T));
  for (const HeadLesson& s : l.split_heads) {
    const std::vector<Ranked> r = ranked(row_prefix(s.weights, T, f.row, f.row + 1));
    f.split.push_back({s.name, r[0].token, r[0].value});
  }
  f.sink_row = l.sink_row;
  if (f.sink_row) {
    const int r = *f.sink_row;
    f.sink_scores = row_prefix(h.scores, T, r, r + 1);
    f.sink_weights = row_prefix(h.weights, T, r, r + 1);
    if (h.sink_logit) {
      f.sink_weights_with_sink = row_prefix(h.weights_with_sink, T, r, r + 1);
      f.sink_nothing = h.sink_weight[(size_t)r];
    }
  }
  return f;
}

json to_json(const CourseFigures& f, const std::vector<std::string>& tokens) {
  auto names = [&](const std::vector<Ranked>& r) {
    json a = json::array();
    for (const Ranked& x : r) a.push_back({{"token", tokens[(size_t)x.token]}, {"value", x.value}});
    return a;
  };
  json j = {{"row", tokens[(size_t)f.row]}, {"causal", f.causal}, {"unmasked", f.unmasked},
            {"by_embedding_cosine", names(f.by_embedding)}, {"by_qk_score", names(f.by_score)},
            {"split", json::array()}};
  for (const SplitPick& s : f.split)
    j["split"].push_back({{"head", s.head}, {"token", tokens[(size_t)s.token]},
                          {"weight", s.weight}});
  if (f.sink_row) {
    j["sink_row"] = {{"row", tokens[(size_t)*f.sink_row]}, {"scores", f.sink_scores},
                     {"weights", f.sink_weights}};
    if (f.sink_nothing)
      j["sink_row"]["with_sink"] = {{"weights", f.sink_weights_with_sink},
                                    {"nothing", *f.sink_nothing}};
  }
  return j;
}

}  // namespace llm0::lesson
