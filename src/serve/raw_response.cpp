// HTTP/1.1 responses as bytes (raw_response.h).
#include "serve/raw_response.h"

#include "core/check.h"

namespace llm0::serve {

namespace {
const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 408: return "Request Timeout";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}
}  // namespace

std::string raw_response(int status, const std::string& content_type, const std::string& body,
                         const std::string& extra_headers) {
  return format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n",
                status, reason_phrase(status), content_type, body.size(), extra_headers) + body;
}

std::string raw_error_response(const ApiError& e, const std::string& extra_headers) {
  return raw_response(e.status, "application/json",
                      e.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), extra_headers);
}

}  // namespace llm0::serve
