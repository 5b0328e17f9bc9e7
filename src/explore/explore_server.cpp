// The `llm0 explore` HTTP server (explore_server.h).
#include "explore/explore_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "explore/explore_http.h"

namespace llm0::explore {

namespace {

constexpr const char* kForm = "application/x-www-form-urlencoded";

bool form_encoded(const httplib::Request& q) {
  return q.get_header_value("Content-Type").rfind(kForm, 0) == 0;
}

// 413's message: the limit that applies to this body. cpp-httplib (a compiled Debian library)
// refuses a form-encoded body over its own CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH.
std::string too_large_message(const httplib::Request& q) {
  if (form_encoded(q))
    return format("a {} body is accepted up to {} bytes (the HTTP library's limit for that type); "
                  "send the config.json as application/json, up to {} bytes", kForm,
                  CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH, ExploreLimits::kBodyBytes);
  return format("the request body is over {} bytes", ExploreLimits::kBodyBytes);
}

void reply_error(httplib::Response& r, int status, const std::string& message, const std::string& code) {
  r.status = status;
  r.set_content(dump_api_json(error_json(message, code)), "application/json");
}

// httplib's own refusals as the API's error object (handlers' answers already have a body).
void error_reply(const httplib::Request& q, httplib::Response& r) {
  if (!r.body.empty()) return;
  serve::close_after_response();
  std::string msg = format("the request was refused (HTTP {})", r.status), code = "bad_request";
  int status = r.status;
  if (r.status == 404) msg = format("no page or endpoint {} {}", q.method, q.path), code = "not_found";
  if (r.status == 413) msg = too_large_message(q), code = "too_large";
  if (r.status == 414)
    msg = format("the request URI is over {} bytes (the HTTP library's limit); a sentence for the "
                 "attention map takes at most {} tokens", CPPHTTPLIB_REQUEST_URI_MAX_LENGTH,
                 ExploreLimits::kAttentionMapTokens), code = "uri_too_long";
  if (const std::string late = serve::request_timeout_message(); !late.empty())
    msg = late, code = "request_timeout", status = 408;
  reply_error(r, status, msg, code);
}

// Before any body byte is read, the method (RFC 9110 §15.5.6: 405 with Allow; OPTIONS and TRACE
// included: the explorer answers no preflight, its pages fetch from their own origin), then a
// body-taking request without any body (no Content-Length, not chunked: 400 at once, where httplib
// would wait for the peer to close); then a Content-Length that is not a decimal byte count is refused (400)
// at once (httplib would read "abc" as 0 and the body as the next request, "-5" as 2^64 − 5 and
// wait for it), and one over the body limit of its content type gets 413 without reading it.
httplib::Server::HandlerResponse check_request(const httplib::Request& q, httplib::Response& r) {
  const std::string allow = allowed_methods(q.path), v = q.get_header_value("Content-Length");
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (allow.empty() && q.method != "GET" && q.method != "HEAD") {
    reply_error(r, 404, format("no page or endpoint {} {}", q.method, q.path), "not_found");
  } else if (!allow.empty() && !method_allowed(q.method, allow)) {
    reply_error(r, 405, format("{} {} takes {} only", q.method, q.path, allow), "method_not_allowed");
    r.set_header("Allow", allow);
  } else if (q.method == "POST" && !q.has_header("Content-Length") && !q.has_header("Transfer-Encoding")) {
    reply_error(r, 400, "empty config: the request has no body (POST the config.json, with its "
                "Content-Length)", "empty_body");
  } else if (!q.has_header("Content-Length")) {
    return httplib::Server::HandlerResponse::Unhandled;
  } else if (!digits || ec != std::errc() || end != v.data() + v.size()) {
    reply_error(r, 400, format("malformed Content-Length header \"{}\" (a decimal byte count)", v), "bad_request");
  } else if (n > (form_encoded(q) ? CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH : ExploreLimits::kBodyBytes)) {
    reply_error(r, 413, too_large_message(q), "too_large");
  } else {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  serve::close_after_response();  // the body was not read: the stream is at an unknown place
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

serve::ConnectionLimits explore_limits() {
  serve::ConnectionLimits l;
  l.command = "";
  return l;
}

static_assert(ExploreLimits::kUriBytes == CPPHTTPLIB_REQUEST_URI_MAX_LENGTH, "info.limits.uri_bytes");

ExploreServer::ExploreServer(ExploreApi& api, const serve::ConnectionLimits& limits)
    : serve::ConnectionServer(limits, {[] { return std::string(); }, [] {}}) {
  set_payload_max_length(ExploreLimits::kBodyBytes);
  set_socket_options([](socket_t sock) {  // no SO_REUSEPORT: a second server must not share the port
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  set_error_handler(error_reply);
  set_pre_routing_handler(check_request);
  set_exception_handler([](const httplib::Request&, httplib::Response& r, std::exception_ptr) {
    r.status = 500;
    r.set_content(dump_api_json(error_json("internal error", "internal_error")), "application/json");
  });
  mount_explore(*this, api);
}

}  // namespace llm0::explore
