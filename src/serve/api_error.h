// ApiError: an error the server answers with OpenAI's error object and an HTTP status
// (https://platform.openai.com/docs/guides/error-codes; the JSON body is
// {"error": {"message", "type", "param", "code"}}, as the official clients parse it).
#pragma once
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace llm0::serve {

/// A request the server refuses: status = HTTP status (400 invalid field or JSON, 404 unknown model
/// or route, 413 body too large, 429 queue full, 503 shutting down, 500 internal), type = OpenAI
/// error type ("invalid_request_error", "rate_limit_error", "server_error"), param = the request
/// field at fault ("" = none), code = a short machine-readable code ("" = none).
struct ApiError : std::runtime_error {
  ApiError(int status, std::string message, std::string param = {},
           std::string type = "invalid_request_error", std::string code = {})
      : std::runtime_error(message), status(status), type(std::move(type)),
        param(std::move(param)), code(std::move(code)) {}
  int status;
  std::string type, param, code;

  /// {"error": {"message", "type", "param" (null if ""), "code" (null if "")}}.
  nlohmann::json to_json() const {
    using nlohmann::json;
    return {{"error", {{"message", what()},
                       {"type", type},
                       {"param", param.empty() ? json(nullptr) : json(param)},
                       {"code", code.empty() ? json(nullptr) : json(code)}}}};
  }
};

}  // namespace llm0::serve
