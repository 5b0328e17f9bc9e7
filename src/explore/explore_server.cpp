// The `llm0 explore` HTTP server (explore_server.h).
#include "explore/explore_server.h"

#include <sys/socket.h>

#include "explore/explore_http.h"
#include "explore/explore_routes.h"
#include "http/framing.h"

namespace llm0::explore {

namespace {

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
  if (r.status == 413)  // the framing policy refuses every length over the limit before: a fallback
    msg = format("the request body is over {} bytes", ExploreLimits::kBodyBytes), code = "too_large";
  if (r.status == 414)
    msg = format("the request URI is over {} bytes (the HTTP library's limit); a sentence for the "
                 "attention map takes at most {} tokens", CPPHTTPLIB_REQUEST_URI_MAX_LENGTH,
                 ExploreLimits::kAttentionMapTokens), code = "uri_too_long";
  if (const std::string late = serve::request_timeout_message(); !late.empty())
    msg = late, code = "request_timeout", status = 408;
  reply_error(r, status, msg, code);
}

// Before any body byte is read, the method (RFC 9110 §15.5.6: 405 with Allow; OPTIONS and TRACE
// included: the explorer answers no preflight, its pages fetch from their own origin); the body's
// framing and size then follow the servers' one policy (http/framing.h).
httplib::Server::HandlerResponse check_method(const httplib::Request& q, httplib::Response& r) {
  const std::string allow = allowed_methods(q.path);
  if (allow.empty() && q.method != "GET" && q.method != "HEAD") {
    reply_error(r, 404, format("no page or endpoint {} {}", q.method, q.path), "not_found");
  } else if (!allow.empty() && !method_allowed(q.method, allow)) {
    reply_error(r, 405, format("{} {} takes {} only", q.method, q.path, allow), "method_not_allowed");
    r.set_header("Allow", allow);
  } else {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  serve::close_after_response();  // the body was not read: the stream is at an unknown place
  return httplib::Server::HandlerResponse::Handled;
}

// A refusal of the framing policy as the API's error object; the connection ends after it.
void framing_reply(const httplib::Request&, httplib::Response& r, const http::Refusal& refusal) {
  serve::close_after_response();
  reply_error(r, refusal.status, refusal.message, refusal.code);
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
  set_socket_options([](socket_t sock) {  // no SO_REUSEPORT: a second server must not share the port
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  set_error_handler(error_reply);
  http::install_framing(*this, http::BodyLimit{ExploreLimits::kBodyBytes, ""}, framing_reply, check_method);
  set_exception_handler([](const httplib::Request&, httplib::Response& r, std::exception_ptr) {
    r.status = 500;
    r.set_content(dump_api_json(error_json("internal error", "internal_error")), "application/json");
  });
  mount_explore(*this, api);
}

}  // namespace llm0::explore
