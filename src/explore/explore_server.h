// ExploreServer: the HTTP server of `llm0 explore` — the explorer's routes (explore_http.h) on a
// ConnectionServer (src/serve/connection_server.h: connection cap, request deadline, keep-alive;
// bind_listener, listen_after_bind and stop from it). Every refusal, httplib's own included
// (unknown route 404, body over 1 MiB 413, unparsable request 400, 408), is the API's error
// object {"error": {"message", "code"}}.
#pragma once
#include "explore/explore_api.h"
#include "serve/connection_server.h"

namespace llm0::explore {

class ExploreServer : public serve::ConnectionServer {
 public:
  /// `api` must outlive the server.
  explicit ExploreServer(ExploreApi& api);
};

}  // namespace llm0::explore
