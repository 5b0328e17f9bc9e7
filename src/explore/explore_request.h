// A request to the explorer's API and its answer, free of any socket (explore_api.h handles them;
// explore_http.h carries them over cpp-httplib), plus the typed reading of query parameters: the
// key is the CLI twin's long option without "--" (docs/explore-api.md "Parameters"). Every refusal
// is an ExploreError carrying the HTTP status and the error object's code.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace llm0::explore {

/// One API request. `path` starts with /explore/api/; `query` holds the decoded parameters in the
/// order given (a key may repeat: refused by QueryArgs).
struct ApiRequest {
  std::string method = "GET";
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  std::string body;
};

/// The answer: an HTTP status and a JSON body ({"error": {"message", "code"}} when status != 200).
struct ApiResponse {
  int status = 200;
  nlohmann::json body;
};

/// A refusal with its HTTP status (400, 404, 405, 413) and code ("bad_request", "no_model",
/// "not_found", "method_not_allowed", "too_large").
struct ExploreError : Error {
  ExploreError(int status, std::string code, const std::string& message)
      : Error(message), status(status), code(std::move(code)) {}
  int status;
  std::string code;
};

/// {"error": {"message": message, "code": code}}
nlohmann::json error_json(const std::string& message, const std::string& code);

/// The query parameters of one endpoint. The constructor refuses (400) a key not in `allowed`
/// and a key given twice, naming it and the keys the endpoint takes.
class QueryArgs {
 public:
  QueryArgs(const std::vector<std::pair<std::string, std::string>>& query,
            const std::vector<std::string>& allowed);
  /// The key was given.
  bool has(const std::string& key) const;
  /// Its text, or `fallback` when absent.
  std::string text(const std::string& key, const std::string& fallback = "") const;
  /// A decimal integer in [lo, hi], or `fallback` when absent. Throws ExploreError (400) naming
  /// the key, the range and the value given.
  int64_t integer(const std::string& key, int64_t lo, int64_t hi, int64_t fallback) const;
  /// A finite decimal number in [lo, hi], or `fallback` when absent (400 as integer()).
  double number(const std::string& key, double lo, double hi, double fallback) const;
  /// "true" or "false", false when absent (400 otherwise).
  bool flag(const std::string& key) const;

 private:
  std::vector<std::pair<std::string, std::string>> query_;
};

/// The canonical form of a GET request (docs/explore-api.md "Static export"): the path, then "?"
/// and key=value pairs sorted by key, values percent-encoded as JavaScript's encodeURIComponent.
std::string canonical_key(const std::string& path,
                          std::vector<std::pair<std::string, std::string>> query);

}  // namespace llm0::explore
