// The `llm0 explore` HTTP server (explore_server.h).
#include "explore/explore_server.h"

#include <sys/socket.h>

#include "explore/explore_http.h"

namespace llm0::explore {

namespace {

// httplib's own refusals as the API's error object (handlers' answers already have a body).
void error_reply(const httplib::Request& q, httplib::Response& r) {
  if (!r.body.empty()) return;
  serve::close_after_response();
  std::string msg = format("the request was refused (HTTP {})", r.status), code = "bad_request";
  if (r.status == 404) msg = format("no page or endpoint {} {}", q.method, q.path), code = "not_found";
  if (r.status == 413) msg = format("the request body is over {} bytes", ExploreLimits::kBodyBytes), code = "too_large";
  if (const std::string late = serve::request_timeout_message(); !late.empty()) msg = late, code = "request_timeout";
  r.set_content(dump_api_json(error_json(msg, code)), "application/json");
}

}  // namespace

ExploreServer::ExploreServer(ExploreApi& api)
    : serve::ConnectionServer(serve::ConnectionLimits{}, {[] { return std::string(); }, [] {}}) {
  set_payload_max_length(ExploreLimits::kBodyBytes);
  set_socket_options([](socket_t sock) {  // no SO_REUSEPORT: a second server must not share the port
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  set_error_handler(error_reply);
  set_exception_handler([](const httplib::Request&, httplib::Response& r, std::exception_ptr) {
    r.status = 500;
    r.set_content(dump_api_json(error_json("internal error", "internal_error")), "application/json");
  });
  mount_explore(*this, api);
}

}  // namespace llm0::explore
