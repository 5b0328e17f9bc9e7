// The JSON object body of a POST endpoint (the training endpoints: docs/explore-api.md "Training"),
// read the way QueryArgs reads query parameters: every refusal is an ExploreError 400 naming the
// key ({"param": KEY} in the error object).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/explore_request.h"

namespace llm0::explore {

class JsonBody {
 public:
  /// Parses `r.body` ("" reads as {}). Throws ExploreError 400 `bad_json` when it is not JSON (or
  /// nests deeper than kMaxJsonDepth), `not_object` when it is not an object, `bad_param` for a key
  /// not in `allowed` (listing them); also refuses any query parameter (`unknown_param`: these
  /// endpoints take none).
  JsonBody(const ApiRequest& r, const std::vector<std::string>& allowed);
  bool has(const std::string& key) const { return body_.contains(key) && !body_[key].is_null(); }
  /// A string of valid UTF-8 of at most `max_bytes` bytes and no control characters, or `fallback`
  /// when absent or null (bad_param otherwise).
  std::string text(const std::string& key, const std::string& fallback = "", size_t max_bytes = 256) const;
  /// An integer in [lo, hi] (a JSON number with no fraction), or `fallback` when absent.
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const;
  /// A finite number in [lo, hi], or `fallback` when absent.
  double number(const std::string& key, double lo, double hi, double fallback) const;

 private:
  nlohmann::json body_;
};

/// An ExploreError 400 `bad_param` naming `param`.
ExploreError bad_param(const std::string& param, const std::string& message);

}  // namespace llm0::explore
