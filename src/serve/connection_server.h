// ConnectionServer: cpp-httplib's Server with limits of our own on every connection, so nothing a
// client sends can hold the server (cpp-httplib 0.11 bounds each read, not a whole request, and
// serves any number of connections from a fixed thread pool):
//   - at most `max_connections` connections are served at once, each on its own HTTP thread. A
//     connection that finds every thread taken gets the thread of an idle kept-alive connection
//     (below), else of the connection that has been reading its request the longest, if longer
//     than `reading_grace_s` (that request is answered 408 `request_timeout` and its connection
//     closed; a connection that sent nothing is closed): so slow clients cannot hold the server
//     (as Apache's mod_reqtimeout and nginx drop slow request reads). A connection whose request
//     is being handled or answered (a stream too) is never evicted. Else it goes to the
//     OverflowResponder (overflow_responder.h), which answers GET /health and GET /metrics and
//     refuses everything else with 503 `server_busy`, without blocking the accept loop;
//   - a request's headers and body must arrive within `request_timeout_s` of the moment the server
//     starts waiting for it (the accept, or the end of the previous response on a keep-alive
//     connection), each read waiting at most `read_timeout_s`: a request that reaches the
//     deadline, or stalls for a read timeout, anywhere in its request line, headers or body, is
//     answered 408 `request_timeout` and its connection closed (a connection that sent nothing is
//     closed without a reply, as nginx does); responses (a long SSE stream too) have no deadline,
//     only a per-write timeout;
//   - an idle keep-alive connection is closed after `keep_alive_timeout_s`, and at once when the
//     cap is reached, so idle connections never keep others out;
//   - a client that shut down only its write side (half-closed) still gets its reply.
// The handler thread of a request can ask whether its client is gone (client_gone()); every handler
// runs under a CancelScope (core/cancel.h) whose test is "the client is gone or the server stops",
// so a long computation that calls cancel_point() between its steps is abandoned within one step.
// An exception that escapes httplib's own guard (a content provider's) ends its connection only.
#pragma once
#include <httplib.h>

#include <functional>
#include <string>

#include "serve/connection_limits.h"

namespace llm0::serve {

/// What the overflow path answers besides 503 (called on the overflow thread).
struct OverflowRoutes {
  std::function<std::string()> metrics_text;  // GET /metrics (Prometheus text)
  std::function<void()> on_refused;           // a request refused by the connection layer (503
                                              // server_busy, 408 request_timeout)
};

class ConnectionServer : public httplib::Server {
 public:
  ConnectionServer(const ConnectionLimits& limits, OverflowRoutes routes);
  /// httplib's Get, Post, Put, Patch and Delete, the handler marking the request as read whole
  /// first (request_read(): from then on its connection is never evicted) and running under a
  /// CancelScope (client gone or stopping(); a fired scope ends the connection after the reply).
  ConnectionServer& Get(const std::string& pattern, Handler handler);
  ConnectionServer& Post(const std::string& pattern, Handler handler);
  ConnectionServer& Put(const std::string& pattern, Handler handler);
  ConnectionServer& Patch(const std::string& pattern, Handler handler);
  ConnectionServer& Delete(const std::string& pattern, Handler handler);
  /// The server has been told to stop (stop()): requests still arriving are not served.
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }
  /// After bind: lets the kernel queue up to `backlog` connections not yet accepted (httplib
  /// listens with a backlog of 5, so a burst of connections would see dropped SYNs and connect
  /// only after the client's retransmission, 1 s to 15 s later).
  void set_backlog(int backlog);
  /// Binds host:port (port 0 = any free port) with a backlog of 1024; returns the port. Throws
  /// llm0::Error naming host and port when the address is taken or not this machine's.
  int bind_listener(const std::string& host, int port);

 private:
  bool process_and_close_socket(socket_t sock) override;
  // httplib's registration of one method (Server::Get, Post, ...), given the marked handler.
  using AddRoute = httplib::Server& (httplib::Server::*)(const std::string&, Handler);
  ConnectionServer& add(AddRoute add, const std::string& pattern, Handler handler);

  ConnectionLimits limits_;
  OverflowRoutes routes_;
};

/// The calling HTTP handler thread's client has closed its connection. A client that only shut
/// down its write side (FIN) is told apart from one that closed the socket by a probe: the first
/// time a FIN is seen, `probe` writes something the client ignores (an interim `103 Early Hints`
/// response before the response headers, an SSE comment inside a stream) — a closed socket
/// answers it with a reset, seen by a later call. `probe` returning false means the write failed
/// (gone). False outside a ConnectionServer thread. Does not block.
bool client_gone(const std::function<bool()>& probe);

/// Why the calling HTTP thread's request could not be read whole in time, for a 408 (the error
/// handler: a read cut short): "the request was not received within S s (llm0 serve
/// --request-timeout)", "no byte of the request arrived for S s (llm0 serve --read-timeout)", or
/// (evicted at the cap) "the request was still arriving after G s while every connection slot was
/// taken ..."; "" when no read of this request was cut, or outside a ConnectionServer thread.
std::string request_timeout_message();

/// The calling HTTP thread's request was read whole (its handler starts): its connection can no
/// longer be evicted to make room; `last`: the connection ends after this reply (the client asked
/// for Connection: close), so a new connection at the cap may wait for its thread (≤ 20 ms).
/// `interim`: the request may take a 1xx interim response (HTTP/1.1; RFC 9110 §15.2 forbids them
/// to an HTTP/1.0 client). Called by the handlers of ConnectionServer::Get / Post.
void request_read(bool last, bool interim);

/// Ends the calling HTTP thread's connection after the response being written (a request whose
/// rest was not read, or could not be parsed, leaves the stream at an unknown place).
void close_after_response();

/// A probe for client_gone() before any response byte was sent: writes the interim response
/// "HTTP/1.1 103 Early Hints" (RFC 8297; clients skip 1xx responses) to the current connection.
/// An HTTP/1.0 request takes no 1xx response: there it sends nothing and says the client is there
/// (a half-closed HTTP/1.0 client is then served to the end).
bool probe_interim_response();

}  // namespace llm0::serve
