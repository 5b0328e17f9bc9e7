// Shapes of one attention head (see lesson_shapes.h). Config fields are read with the KV
// ledger's checked accessors (config/config_fields.h), so errors name the file and the field.
#include "lesson/lesson_shapes.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "config/config_fields.h"
#include "core/check.h"
#include "core/json_file.h"
#include "lesson/lesson_svg.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

ShapeStep product(std::string name, std::string formula, std::vector<int64_t> left,
                  std::vector<int64_t> right, std::string contracts) {
  ShapeStep s{std::move(name), std::move(formula), left, right, {left[0], right[1]},
              std::move(contracts), left[1], 0};
  s.multiply_adds = (uint64_t)left[0] * (uint64_t)left[1] * (uint64_t)right[1];
  return s;
}

json read_config(const std::string& path) { return read_json_file(path, "config file"); }

}  // namespace

ShapesLesson shapes_for(int64_t T, int64_t C, int64_t H, int64_t Hkv, int64_t d_qk,
                        int64_t d_v) {
  LLM0_CHECK(T >= 1, "--tokens must be >= 1, got {}", T);
  LLM0_CHECK(T <= kShapesMaxTokens, "--tokens must be <= 16,777,216, got {}", T);
  LLM0_CHECK(C >= 1 && H >= 1 && Hkv >= 1 && d_qk >= 1 && d_v >= 1,
             "shape sizes must be >= 1 (d_model {}, heads {}, KV heads {}, d_qk {}, d_v {})", C,
             H, Hkv, d_qk, d_v);
  ShapesLesson l;
  l.T = T, l.d_model = C, l.num_attention_heads = H, l.num_key_value_heads = Hkv;
  l.d_qk = d_qk, l.d_v = d_v;
  l.steps.push_back(product("Q_h", "Q_h = X W_Q,h", {T, C}, {C, d_qk}, "d_model (hidden_size)"));
  l.steps.push_back(product("K_h", "K_h = X W_K,h", {T, C}, {C, d_qk}, "d_model (hidden_size)"));
  l.steps.push_back(product("V_h", "V_h = X W_V,h", {T, C}, {C, d_v}, "d_model (hidden_size)"));
  l.steps.push_back(product("S_h", "S_h = Q_h K_hᵀ / √d_h", {T, d_qk}, {d_qk, T},
                            "d_h (head_dim)"));
  ShapeStep a{"A_h", "A_h = softmax(S_h + mask)", {T, T}, {}, {T, T},
              "", 0, 0};
  l.steps.push_back(a);
  l.steps.push_back(product("O_h", "O_h = A_h V_h", {T, T}, {T, d_v}, "T (keys)"));
  return l;
}

ShapesLesson shapes_from_config(const std::string& path, int64_t tokens) {
  const json j = read_config(path);
  LLM0_CHECK(j.is_object(), "{}: a config must be a JSON object", path);
  const ConfigFields f{text_config_of(j), path};
  const int64_t C = f.positive("hidden_size"), H = f.positive("num_attention_heads");
  const int64_t Hkv = f.positive_or("num_key_value_heads", H);
  const bool mla = f.has("kv_lora_rank");
  int64_t d_qk = 0, d_v = 0;
  if (mla) {
    d_qk = f.positive("qk_nope_head_dim") + f.positive("qk_rope_head_dim");
    d_v = f.positive("v_head_dim");
  } else if (f.has("head_dim")) {
    d_qk = d_v = f.positive("head_dim");
  } else {
    LLM0_CHECK(C % H == 0, "{}: hidden_size={} not divisible by num_attention_heads={} (and no "
               "head_dim)", path, C, H);
    d_qk = d_v = C / H;
  }
  LLM0_CHECK(tokens != 0, "--tokens must be >= 1, got 0");
  if (tokens < 0) {
    LLM0_CHECK(f.has("max_position_embeddings"), "{}: no --tokens given and missing field "
               "\"max_position_embeddings\"", path);
    tokens = f.positive("max_position_embeddings");
  }
  ShapesLesson l = shapes_for(tokens, C, H, Hkv, d_qk, d_v);
  l.source = path, l.kind = "config", l.mla = mla;
  return l;
}

ShapesLesson shapes_from_world(const TeachingWorld& w) {
  ShapesLesson l = shapes_for(w.T(), w.d_model, w.H(), w.H(), w.d_head, w.d_head);
  l.source = w.source, l.kind = "teaching world";
  return l;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

json to_json(const ShapesLesson& l) {
  json steps = json::array();
  for (const ShapeStep& s : l.steps) {
    json sj = {{"name", s.name}, {"formula", s.formula}, {"left", s.left},
               {"result", s.result}, {"multiply_adds", s.multiply_adds}};
    if (!s.right.empty()) sj["right"] = s.right;
    sj["contracts"] = s.contracts.empty() ? json(nullptr) : json(s.contracts);
    if (!s.contracts.empty()) sj["contracted"] = s.contracted;
    steps.push_back(sj);
  }
  return {{"source", l.source}, {"kind", l.kind}, {"T", l.T}, {"d_model", l.d_model},
          {"num_attention_heads", l.num_attention_heads},
          {"num_key_value_heads", l.num_key_value_heads}, {"d_qk", l.d_qk}, {"d_v", l.d_v},
          {"mla", l.mla}, {"steps", steps}};
}

namespace {

// Edge length in px of a dimension of `n` elements: a log scale.
double edge(int64_t n) { return 14.0 + 28.0 * std::log2((double)n); }

// A labelled matrix: name above, shape below.
void draw_matrix(Svg& svg, double x, double y, int64_t rows, int64_t cols,
                 const std::string& name, const std::string& fill) {
  svg.rect(x, y, edge(cols), edge(rows), fill, "#333", 0.85);
  svg.text(x + edge(cols) / 2, y - 6, name, 13, "middle");
  svg.text(x + edge(cols) / 2, y + edge(rows) + 16, shape_text({rows, cols}), 11, "middle");
}

// Draws one lesson's band at height y; returns the band's width.
double draw_band(Svg& svg, const ShapesLesson& l, double y, bool draw) {
  const int64_t T = l.T, dk = l.d_qk, dv = l.d_v;
  struct Item { std::string name; int64_t rows, cols; std::string fill, op, note; };
  const std::vector<Item> items = {
      {"Q_h", T, dk, "#9ecae1", "×", ""},
      {"K_hᵀ", dk, T, "#fdae6b", "=", format("contracts d_h = {}", dk)},
      {"A_h = softmax(S_h)", T, T, "#d9d9d9", "×", ""},
      {"V_h", T, dv, "#a1d99b", "=", format("contracts T = {}", T)},
      {"O_h", T, dv, "#bcbddc", "", ""}};
  double x = 20;
  const double top = y + 50;
  for (const Item& it : items) {
    if (draw) draw_matrix(svg, x, top, it.rows, it.cols, it.name, it.fill);
    x += std::max(edge(it.cols), 110.0);
    if (!it.op.empty()) {
      if (draw) svg.text(x + 50, top + edge(T) / 2, it.op, 22, "middle");
      if (draw && !it.note.empty()) svg.text(x + 50, top + edge(T) / 2 + 22, it.note, 10, "middle");
      x += 100;
    }
  }
  if (draw)
    svg.text(20, y + 20, format("{}: {} (T = {}, d_model = {}, {} heads, {} KV heads)", l.kind,
                                l.source, T, l.d_model, l.num_attention_heads,
                                l.num_key_value_heads), 14);
  return x + 20;
}

}  // namespace

std::string shapes_svg(const std::vector<ShapesLesson>& lessons) {
  LLM0_CHECK(!lessons.empty(), "shapes_svg needs at least one lesson");
  double width = 600, height = 50;
  Svg probe(1, 1);
  for (const ShapesLesson& l : lessons) {
    width = std::max(width, draw_band(probe, l, 0, false));
    height += edge(l.T) + 100;
  }
  Svg svg(width, height);
  svg.text(20, 24, "One attention head; edge lengths on a log scale (14 + 28·log2 n px)", 15);
  double y = 40;
  for (const ShapesLesson& l : lessons) {
    draw_band(svg, l, y, true);
    y += edge(l.T) + 100;
  }
  return svg.str();
}

}  // namespace llm0::lesson
