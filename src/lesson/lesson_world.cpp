// Loading and validating the teaching world (see lesson_world.h, docs/teaching-world.md).
#include "lesson/lesson_world.h"

#include <cmath>
#include <fstream>
#include <utility>

#include "core/check.h"
#include "core/json_file.h"

namespace llm0::lesson {

using nlohmann::json;

namespace {

const json& field(const json& j, const std::string& key, const std::string& where,
                  const std::string& source) {
  LLM0_CHECK(j.is_object(), "{}: {} must be a JSON object", source, where);
  LLM0_CHECK(j.contains(key) && !j.at(key).is_null(), "{}: missing field \"{}{}\"", source,
             where.empty() ? "" : where + ".", key);
  return j.at(key);
}

int positive_int(const json& j, const std::string& key, const std::string& source) {
  const json& v = field(j, key, "", source);
  LLM0_CHECK(v.is_number_integer() && v.get<long long>() > 0 && v.get<long long>() < 65536,
             "{}: field \"{}\" must be a positive integer, got {}", source, key, json_excerpt(v));
  return v.get<int>();
}

// A numeric row of exactly `n` finite numbers, appended to `out`.
void read_row(const json& v, size_t n, const std::string& name, const std::string& source,
              std::vector<float>& out) {
  LLM0_CHECK(v.is_array() && v.size() == n, "{}: \"{}\" must be a list of {} numbers, got {}",
             source, name, n, json_excerpt(v));
  for (const json& x : v) {
    LLM0_CHECK(x.is_number() && std::isfinite(x.get<double>()),
               "{}: \"{}\" holds a non-numeric or non-finite value {}", source, name, json_excerpt(x));
    out.push_back(x.get<float>());
  }
}

// A [rows, cols] matrix given as a list of rows.
std::vector<float> read_matrix(const json& v, size_t rows, size_t cols, const std::string& name,
                               const std::string& source) {
  LLM0_CHECK(v.is_array() && v.size() == rows,
             "{}: \"{}\" must have {} rows of {} numbers (shape [{}, {}]), got {} rows", source,
             name, rows, cols, rows, cols, v.is_array() ? v.size() : 0);
  std::vector<float> m;
  for (size_t r = 0; r < rows; ++r)
    read_row(v[r], cols, format("{}[{}]", name, r), source, m);
  return m;
}

WorldHead read_head(const json& h, size_t i, int d, int dh, const std::string& source) {
  const std::string where = format("heads[{}]", i);
  WorldHead head;
  head.name = h.is_object() && h.contains("name") && h.at("name").is_string()
                  ? h.at("name").get<std::string>() : format("head {}", i);
  head.W_Q = read_matrix(field(h, "W_Q", where, source), d, dh, where + ".W_Q", source);
  head.W_K = read_matrix(field(h, "W_K", where, source), d, dh, where + ".W_K", source);
  head.W_V = read_matrix(field(h, "W_V", where, source), d, dh, where + ".W_V", source);
  if (h.contains("sink_logit") && !h.at("sink_logit").is_null()) {
    const json& s = h.at("sink_logit");
    LLM0_CHECK(s.is_number() && std::isfinite(s.get<double>()),
               "{}: \"{}.sink_logit\" must be a finite number, got {}", source, where, json_excerpt(s));
    head.sink_logit = s.get<double>();
  }
  return head;
}

WorldSwap read_swap(const json& s, const TeachingWorld& w) {
  const json& pair = field(s, "swap", "swap_test", w.source);
  LLM0_CHECK(pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string(),
             "{}: \"swap_test.swap\" must be two token strings, got {}", w.source, json_excerpt(pair));
  const json& q = field(s, "query", "swap_test", w.source);
  LLM0_CHECK(q.is_string(), "{}: \"swap_test.query\" must be a token string", w.source);
  WorldSwap sw;
  sw.a = w.position_of(pair[0].get<std::string>());
  sw.b = w.position_of(pair[1].get<std::string>());
  if (sw.a > sw.b) std::swap(sw.a, sw.b);
  LLM0_CHECK(sw.a != sw.b, "{}: \"swap_test.swap\" names the same position twice", w.source);
  sw.query = w.position_of(q.get<std::string>());
  LLM0_CHECK(sw.query >= sw.a, "{}: \"swap_test.query\" ({}) comes before both swapped tokens and "
             "would see no change", w.source, q.get<std::string>());
  if (s.contains("head")) {
    LLM0_CHECK(s.at("head").is_number_integer() && s.at("head").get<int>() >= 0 &&
                   s.at("head").get<int>() < w.H(),
               "{}: \"swap_test.head\" must be a head index in [0, {})", w.source, w.H());
    sw.head = s.at("head").get<int>();
  }
  return sw;
}

WorldSplit read_split(const json& s, const TeachingWorld& w) {
  const json& n = field(s, "count", "split_heads", w.source);
  LLM0_CHECK(n.is_number_integer() && n.get<int>() >= 1 && w.d_head % n.get<int>() == 0,
             "{}: \"split_heads.count\" must be a positive divisor of d_head ({}), got {}",
             w.source, w.d_head, json_excerpt(n));
  LLM0_CHECK(w.H() == 1, "{}: \"split_heads\" cuts one head by columns; the world has {} heads",
             w.source, w.H());
  WorldSplit sp;
  sp.count = n.get<int>();
  for (int i = 0; i < sp.count; ++i) sp.names.push_back(format("head {}", i));
  if (s.contains("names")) {
    const json& names = s.at("names");
    LLM0_CHECK(names.is_array() && names.size() == (size_t)sp.count,
               "{}: \"split_heads.names\" must be a list of {} strings", w.source, sp.count);
    for (size_t i = 0; i < names.size(); ++i) {
      LLM0_CHECK(names[i].is_string(), "{}: \"split_heads.names\" must hold strings", w.source);
      sp.names[i] = names[i].get<std::string>();
    }
  }
  return sp;
}

}  // namespace

int TeachingWorld::position_of(const std::string& name) const {
  for (size_t t = 0; t < tokens.size(); ++t)
    if (tokens[t] == name) return (int)t;
  LLM0_FAIL("{}: token \"{}\" is not in \"tokens\"", source, name);
}

TeachingWorld world_from_json(const json& j, const std::string& source) {
  TeachingWorld w;
  w.source = source;
  LLM0_CHECK(j.is_object(), "{}: the teaching world must be a JSON object", source);
  if (j.contains("description") && j.at("description").is_string())
    w.description = j.at("description").get<std::string>();
  w.d_model = positive_int(j, "d_model", source);
  w.d_head = positive_int(j, "d_head", source);
  const json& tokens = field(j, "tokens", "", source);
  LLM0_CHECK(tokens.is_array() && !tokens.empty(), "{}: \"tokens\" must be a non-empty list",
             source);
  for (const json& t : tokens) {
    LLM0_CHECK(t.is_string(), "{}: \"tokens\" must hold strings, got {}", source, json_excerpt(t));
    w.tokens.push_back(t.get<std::string>());
  }
  const json& emb = field(j, "embeddings", "", source);
  LLM0_CHECK(emb.is_array() && emb.size() == w.tokens.size(),
             "{}: \"embeddings\" has {} rows but \"tokens\" has {} tokens", source,
             emb.is_array() ? emb.size() : 0, w.tokens.size());
  w.embeddings = read_matrix(emb, w.tokens.size(), w.d_model, "embeddings", source);
  const json& heads = field(j, "heads", "", source);
  LLM0_CHECK(heads.is_array() && !heads.empty(), "{}: \"heads\" must be a non-empty list", source);
  for (size_t i = 0; i < heads.size(); ++i)
    w.heads.push_back(read_head(heads[i], i, w.d_model, w.d_head, source));
  if (j.contains("W_O") && !j.at("W_O").is_null())
    w.W_O = read_matrix(j.at("W_O"), (size_t)w.H() * w.d_head, w.d_model, "W_O", source);
  if (j.contains("swap_test") && !j.at("swap_test").is_null())
    w.swap = read_swap(j.at("swap_test"), w);
  if (j.contains("split_heads") && !j.at("split_heads").is_null())
    w.split = read_split(j.at("split_heads"), w);
  if (j.contains("sink_row") && !j.at("sink_row").is_null()) {
    LLM0_CHECK(j.at("sink_row").is_string(), "{}: \"sink_row\" must be a token string", source);
    w.sink_row = w.position_of(j.at("sink_row").get<std::string>());
  }
  return w;
}

TeachingWorld load_world(const std::string& path) {
  const json j = read_json_file(path, "teaching world file");
  return world_from_json(j, path);
}

TeachingWorld with_asker(const TeachingWorld& w, const std::string& token) {
  LLM0_CHECK(w.swap.has_value(), "{}: no \"swap_test\", so there is no asker to choose", w.source);
  std::string sentence;
  for (const std::string& t : w.tokens) sentence += (sentence.empty() ? "" : " ") + t;
  TeachingWorld a = w;
  for (size_t t = 0; t < w.tokens.size(); ++t)
    if (w.tokens[t] == token) {
      a.swap->query = (int)t;
      return a;
    }
  LLM0_FAIL("asker \"{}\" is not a token of the sentence ({})", token, sentence);
}

TeachingWorld swapped(const TeachingWorld& w, int a, int b) {
  TeachingWorld s = w;
  std::swap(s.tokens[(size_t)a], s.tokens[(size_t)b]);
  for (int i = 0; i < w.d_model; ++i)
    std::swap(s.embeddings[(size_t)a * w.d_model + i], s.embeddings[(size_t)b * w.d_model + i]);
  return s;
}

TeachingWorld split_world(const TeachingWorld& w) {
  LLM0_CHECK(w.split.has_value(), "{}: the world has no \"split_heads\"", w.source);
  const int n = w.split->count, D = w.d_head, Dh = D / n;
  TeachingWorld s = w;
  s.d_head = Dh, s.heads.clear(), s.swap.reset(), s.split.reset();
  auto columns = [&](const std::vector<float>& W, int c0) {  // [d_model, Dh] of W [d_model, D]
    std::vector<float> m((size_t)w.d_model * Dh);
    for (int i = 0; i < w.d_model; ++i)
      for (int c = 0; c < Dh; ++c) m[(size_t)i * Dh + c] = W[(size_t)i * D + c0 + c];
    return m;
  };
  const WorldHead& h0 = w.heads[0];
  for (int h = 0; h < n; ++h)
    s.heads.push_back({w.split->names[(size_t)h], columns(h0.W_Q, h * Dh),
                       columns(h0.W_K, h * Dh), columns(h0.W_V, h * Dh), std::nullopt});
  return s;
}

}  // namespace llm0::lesson
