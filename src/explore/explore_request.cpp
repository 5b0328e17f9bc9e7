// Query parameters and canonical keys of the explorer's API (explore_request.h).
#include "explore/explore_request.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "tokenizer/utf8.h"

namespace llm0::explore {

using nlohmann::json;

json error_json(const std::string& message, const std::string& code) {
  return {{"error", {{"message", message}, {"code", code}}}};
}

namespace {

[[noreturn]] void bad(const std::string& message) {
  throw ExploreError(400, "bad_request", message);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

}  // namespace

QueryArgs::QueryArgs(const std::vector<std::pair<std::string, std::string>>& query,
                     const std::vector<std::string>& allowed)
    : query_(query) {
  for (size_t i = 0; i < query.size(); ++i) {
    const std::string& key = query[i].first;
    if (!utf8_valid(key) || !utf8_valid(query[i].second))
      bad(format("parameter {} is not valid UTF-8 text", i + 1));
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      bad(format("unknown parameter \"{}\" (this endpoint takes: {})", key, joined(allowed)));
    for (size_t j = 0; j < i; ++j)
      if (query[j].first == key) bad(format("parameter \"{}\" is given twice", key));
  }
}

bool QueryArgs::has(const std::string& key) const {
  return std::any_of(query_.begin(), query_.end(), [&](const auto& kv) { return kv.first == key; });
}

std::string QueryArgs::text(const std::string& key, const std::string& fallback) const {
  for (const auto& [k, v] : query_)
    if (k == key) return v;
  return fallback;
}

int64_t QueryArgs::integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const {
  if (!has(key)) return fallback;
  const std::string v = text(key);
  int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || x < lo || x > hi)
    bad(format("parameter \"{}\" must be an integer in [{}, {}], got \"{}\"", key, lo, hi, v));
  return x;
}

double QueryArgs::number(const std::string& key, double lo, double hi, double fallback) const {
  if (!has(key)) return fallback;
  const std::string v = text(key);
  char* end = nullptr;
  const double x = v.empty() || std::isspace((unsigned char)v[0]) ? NAN : std::strtod(v.c_str(), &end);
  if (!std::isfinite(x) || end != v.c_str() + v.size() || x < lo || x > hi)
    bad(format("parameter \"{}\" must be a number in [{}, {}], got \"{}\"", key, lo, hi, v));
  return x;
}

bool QueryArgs::flag(const std::string& key) const {
  if (!has(key)) return false;
  const std::string v = text(key);
  if (v != "true" && v != "false")
    bad(format("parameter \"{}\" must be true or false, got \"{}\"", key, v));
  return v == "true";
}

std::string canonical_key(const std::string& path,
                          std::vector<std::pair<std::string, std::string>> query) {
  std::stable_sort(query.begin(), query.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  static const char* kHex = "0123456789ABCDEF";
  auto encode = [](const std::string& s) {  // encodeURIComponent on UTF-8 bytes
    std::string out;
    for (unsigned char c : s) {
      if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || std::string_view("-_.!~*'()").find((char)c) != std::string_view::npos)
        out += (char)c;
      else
        out += '%', out += kHex[c >> 4], out += kHex[c & 15];
    }
    return out;
  };
  std::string key = path;
  for (size_t i = 0; i < query.size(); ++i)
    key += (i == 0 ? "?" : "&") + encode(query[i].first) + "=" + encode(query[i].second);
  return key;
}

}  // namespace llm0::explore
