// The `llm0 explore` HTTP server (explore_server.h).
#include "explore/explore_server.h"

#include <sys/socket.h>

#include "explore/explore_http.h"
#include "serve/connection_server.h"

namespace llm0::explore {

struct ExploreServer::Impl {
  ExploreServerOptions opt;
  serve::ConnectionServer http;
  Impl(const ExploreServerOptions& o) : opt(o), http(serve::ConnectionLimits{}, {[] { return std::string(); }, [] {}}) {}
};

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

ExploreServer::ExploreServer(ExploreApi& api, const ExploreServerOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  serve::ConnectionServer& h = impl_->http;
  h.set_payload_max_length(ExploreLimits::kBodyBytes);
  h.set_socket_options([](socket_t sock) {  // no SO_REUSEPORT: a second server must not share the port
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  h.set_error_handler(error_reply);
  h.set_exception_handler([](const httplib::Request&, httplib::Response& r, std::exception_ptr) {
    r.status = 500;
    r.set_content(dump_api_json(error_json("internal error", "internal_error")), "application/json");
  });
  mount_explore(h, api);
}

ExploreServer::~ExploreServer() = default;

int ExploreServer::bind() {
  httplib::Server& h = impl_->http;
  const ExploreServerOptions& o = impl_->opt;
  const int port = o.port == 0 ? h.bind_to_any_port(o.host) : (h.bind_to_port(o.host, o.port) ? o.port : -1);
  LLM0_CHECK(port > 0, "cannot listen on {}:{} (address in use, or not an address of this machine)",
             o.host, o.port);
  return port;
}

void ExploreServer::listen() { impl_->http.listen_after_bind(); }

void ExploreServer::stop() { impl_->http.stop(); }

}  // namespace llm0::explore
