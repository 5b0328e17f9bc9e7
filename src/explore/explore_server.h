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
  /// Binds host:port; returns the port. Throws llm0::Error naming host and port on failure.
  int bind();
  /// Serves until stop(). Call after bind().
  void listen();
  /// Makes listen() return (callable from another thread or a signal-watching thread).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm0::explore
