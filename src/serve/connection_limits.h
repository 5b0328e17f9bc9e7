// The limits a ConnectionServer (connection_server.h) puts on every connection, which its
// SocketStream (socket_stream.h) enforces on each read: how many connections, how long a request
// may take to arrive, how long one read or write may wait, how long a kept-alive connection idles.
#pragma once
#include <string>

namespace llm0::serve {

/// Limits of the connections of `llm0 serve` and `llm0 explore` (set from their options; the
/// defaults below).
struct ConnectionLimits {
  int max_connections = 96;       // connections served at once (>= 1), one HTTP thread each
  double request_timeout_s = 30;  // to receive one request's headers and body (> 0)
  double reading_grace_s = 1;     // at the cap, a request still arriving after this long makes
                                  // room for a new connection (>= 0)
  int read_timeout_s = 10;        // one read (> 0)
  int write_timeout_s = 10;       // one write (> 0)
  int keep_alive_timeout_s = 5;   // an idle keep-alive connection waits this long for a request
  int keep_alive_max_requests = 1000;  // requests per connection before it is closed (>= 1;
                                       // nginx's keepalive_requests; httplib's own default is 5)
  std::string command = "llm0 serve";  // whose options set these limits, named in 408 messages
                                       // ("" = fixed limits: no option named)
};

}  // namespace llm0::serve
