// ApiError: an error the server answers with OpenAI's error object and an HTTP status
// (https://platform.openai.com/docs/guides/error-codes; the JSON body is
// {"error": {"message", "type", "param", "code"}}, as the official clients parse it).
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace llm0::serve {

/// `text` with every C0 control character and DEL written as a JSON-style escape (NUL ->
/// "\\u0000", newline -> "\\u000a"), so text a client sent can be shown in a message whole:
/// nothing cuts it (a NUL ends a C string) or breaks its line. Other bytes are kept.
inline std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = (unsigned char)ch;
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof(hex), "\\u%04x", c);
    out += hex;
  }
  return out;
}

/// A request the server refuses: status = HTTP status (400 invalid field or JSON, 404 unknown model
/// or route, 413 body too large, 429 queue full, 503 shutting down, 500 internal), type = OpenAI
/// error type ("invalid_request_error", "rate_limit_error", "server_error"), param = the request
/// field at fault ("" = none), code = a short machine-readable code ("" = none). The message
/// may show what the client sent: its control characters are escaped (escape_controls), so a NUL
/// in a model name or path does not cut it.
struct ApiError : std::runtime_error {
  ApiError(int status, const std::string& message, std::string param = {},
           std::string type = "invalid_request_error", std::string code = {})
      : std::runtime_error(escape_controls(message)), status(status), type(std::move(type)),
        param(std::move(param)), code(std::move(code)) {}
  /// 408 `request_timeout`: the request was not received in time (`message` says which limit).
  static ApiError request_timeout(const std::string& message) {
    return ApiError(408, message, "", "invalid_request_error", "request_timeout");
  }
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
