// ExploreServer: the HTTP server of `llm0 explore` — the explorer's routes (explore_http.h) on a
// ConnectionServer (src/serve/connection_server.h: connection cap, request deadline, keep-alive),
// loopback by default. Every refusal, httplib's own included (unknown route 404, body over 1 MiB
// 413, unparsable request 400, 408), is the API's error object {"error": {"message", "code"}}.
#pragma once
#include <memory>
#include <string>

#include "explore/explore_api.h"

namespace llm0::explore {

struct ExploreServerOptions {
  std::string host = "127.0.0.1";
  int port = 8090;  ///< 0 = any free port (bind() returns it)
};

class ExploreServer {
 public:
  /// `api` must outlive the server.
  ExploreServer(ExploreApi& api, const ExploreServerOptions& options);
  ~ExploreServer();
  /// ConnectionServer::bind_listener on the options' address: the port, or llm0::Error.
  int bind();
  /// Serves until stop(), which may come from any thread.
  void listen();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm0::explore
