// JSON bodies of the explorer's POST endpoints (json_body.h).
#include "explore/json_body.h"

#include <algorithm>
#include <cmath>

#include "core/json_parse.h"
#include "tokenizer/utf8.h"

namespace llm0::explore {

using nlohmann::json;

ExploreError bad_param(const std::string& param, const std::string& message) {
  return ExploreError(400, "bad_param", message, "", {{"param", param}});
}

JsonBody::JsonBody(const ApiRequest& r, const std::vector<std::string>& allowed) {
  QueryArgs(r.query, {});
  if (r.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    body_ = json::object();
    return;
  }
  try {
    body_ = parse_json(r.body, "request body");
  } catch (const JsonTooDeep& e) {
    throw ExploreError(400, "bad_json", e.what(), "", e.field.empty() ? json::object() : json{{"field", e.field}});
  } catch (const Error& e) {
    throw ExploreError(400, "bad_json", e.what());
  }
  if (!body_.is_object())
    throw ExploreError(400, "not_object", format("the request body must be a JSON object ({...}), got {}", json_excerpt(body_)));
  std::string list;
  for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
  for (const auto& [key, value] : body_.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw bad_param(key, format("unknown key \"{}\" (this endpoint takes: {})", text_excerpt(key), list));
}

std::string JsonBody::text(const std::string& key, const std::string& fallback, size_t max_bytes) const {
  if (!has(key)) return fallback;
  if (!body_[key].is_string()) throw bad_param(key, format("\"{}\" must be a string, got {}", key, json_excerpt(body_[key])));
  const std::string& s = body_[key].get_ref<const std::string&>();
  if (!utf8_valid(s)) throw bad_param(key, format("\"{}\" is not valid UTF-8 text", key));
  if (s.size() > max_bytes) throw bad_param(key, format("\"{}\" is {} bytes; at most {} are accepted", key, s.size(), max_bytes));
  if (std::any_of(s.begin(), s.end(), [](char ch) { return (unsigned char)ch < 0x20 || ch == 0x7f; }))
    throw bad_param(key, format("\"{}\" must not contain control characters (a newline, a tab)", key));
  return s;
}

int64_t JsonBody::integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const {
  if (!has(key)) return fallback;
  const json& v = body_[key];
  const bool whole = v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                               v.get<double>() == std::floor(v.get<double>()));
  if (!whole) throw bad_param(key, format("\"{}\" must be an integer from {} to {}, got {}", key, lo, hi, json_excerpt(v)));
  const double d = v.get<double>();
  if (d < (double)lo || d > (double)hi)
    throw bad_param(key, format("\"{}\" must be from {} to {}, got {}", key, lo, hi, json_excerpt(v)));
  return v.is_number_unsigned() ? (int64_t)v.get<uint64_t>() : v.is_number_integer() ? v.get<int64_t>() : (int64_t)d;
}

double JsonBody::number(const std::string& key, double lo, double hi, double fallback) const {
  if (!has(key)) return fallback;
  const json& v = body_[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    throw bad_param(key, format("\"{}\" must be a number from {} to {}, got {}", key, lo, hi, json_excerpt(v)));
  return v.get<double>();
}

}  // namespace llm0::explore
