// ExploreServer: the HTTP server of `llm0 explore` — the explorer's routes (explore_http.h) on a
// ConnectionServer (src/serve/connection_server.h: connection cap, request deadline, keep-alive;
// bind_listener, listen_after_bind and stop from it; its limits fixed at their defaults). A body's
// framing follows the policy `llm0 serve` follows too (src/http/framing.h: Content-Length,
// Transfer-Encoding, Expect; body over 1 MiB — or over 8,192 bytes when form-encoded — 413). Every
// refusal, httplib's own included (unknown route 404, an unparsable request 400, a request that does
// not arrive in time 408), is the API's error object {"error": {"message", "code"}}.
#pragma once
#include "explore/explore_api.h"
#include "serve/connection_server.h"

namespace llm0::explore {

/// The limits `llm0 explore` runs with: ConnectionLimits' defaults, no command option named in
/// a 408's message (the explorer has no options for them).
serve::ConnectionLimits explore_limits();

class ExploreServer : public serve::ConnectionServer {
 public:
  /// `api` must outlive the server; `limits` other than explore_limits() are for tests.
  explicit ExploreServer(ExploreApi& api, const serve::ConnectionLimits& limits = explore_limits());
};

}  // namespace llm0::explore
