// Connection cap, request deadline, keep-alive, eviction of slow requests and client-gone checks
// over cpp-httplib (connection_server.h). httplib's accept loop hands each accepted socket to a
// TaskQueue job that calls the virtual process_and_close_socket(); the queue here decides, in the
// accept thread, whether the connection gets an HTTP thread (a free one, one an idle kept-alive
// connection gives up, or one a slow request is evicted from) or goes to the OverflowResponder,
// and the override serves the connection through a SocketStream (socket_stream.h) whose reads
// stop at the request's deadline.
#include "serve/connection_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <list>
#include <set>
#include <system_error>

#include "core/cancel.h"
#include "core/check.h"
#include "serve/overflow_responder.h"
#include "serve/raw_response.h"
#include "serve/socket_stream.h"

namespace llm0::serve {

namespace {
using Clock = std::chrono::steady_clock;
constexpr Clock::time_point kNotReading = Clock::time_point::max();

// The connection served by a thread (for client_gone(), request_timeout_message(), eviction).
struct Connection {
  int sock = -1;
  const SocketStream* stream = nullptr;
  bool probed = false;  // a FIN was seen and the probe written (for this request)
  bool interim = true;  // the request may take a 1xx interim response (HTTP/1.1, not 1.0)
  bool close = false;   // end the connection after this response
  bool last = false;    // this response is its last (counted in ConnectionQueue::closing_)
  Wake wake;            // ends its reads when it is evicted
  // Since when it reads a request (its first one: since it got a thread; a kept-alive one: since
  // its first byte); kNotReading while the request is handled or answered, or it waits idle.
  // Guarded by the ConnectionQueue's mutex.
  Clock::time_point reading_since = kNotReading;
};
thread_local Connection* tl_connection = nullptr;

// httplib's TaskQueue: `workers` threads, one per connection. A connection that finds every
// thread busy takes the thread of an idle kept-alive connection, else of the connection that has
// been reading its request the longest, if longer than the grace (evicted: 408), else goes to the
// OverflowResponder. Tracks live connections, so shutdown() can end the reads of those still
// waiting for a request.
class ConnectionQueue final : public httplib::TaskQueue {
 public:
  ConnectionQueue(int workers, double grace_s, const OverflowRoutes& routes, const std::string& busy_option)
      : workers_(workers),
        grace_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_s))),
        overflow_(routes.metrics_text, routes.on_refused, OverflowResponder::kMaxClients, busy_option) {
    for (int i = 0; i < workers; ++i) {
      try {
        threads_.emplace_back([this] { work(); });
      } catch (const std::system_error&) {  // the system's thread limit: serve with what started
        if (threads_.empty()) throw;
        workers_ = (int)threads_.size();
        std::fprintf(stderr, "llm0 serve: only %d of --max-connections %d connection threads could "
                     "be started; serving %d connections at once\n", workers_, workers, workers_);
        break;
      }
    }
  }
  ~ConnectionQueue() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    {
      // A connection answering its last request (Connection: close) frees its thread a moment
      // after its reply: a client that reconnects at once must find that thread, so wait for it
      // (at most kHandoff) — unless connections went over the cap within kPressure (under load
      // the accept loop must not slow down; the overflow path answers them).
      std::unique_lock<std::mutex> lock(mu_);
      const Clock::time_point now = Clock::now();
      if (now - last_overflow_ >= kPressure)
        released_.wait_until(lock, now + kHandoff, [&] {
          return busy_ < workers_ || closing_ == 0 || idle_ > yielding_ || stopping_;
        });
      // Every thread busy, but some only wait idle on kept-alive connections: one of them gives
      // its thread up (within 50 ms) and this connection takes it. Else a slow request makes
      // room (its thread answers 408 and ends it at once).
      const bool full = busy_ >= workers_;
      const bool yield = full && idle_ > yielding_;
      if (!full || yield || evict_slowest()) {
        yielding_ += yield;
        ++busy_;
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
      last_overflow_ = Clock::now();
    }
    overflow_.enqueue(std::move(fn));
  }
  /// The calling thread's connection `c` will end after the response being prepared (its last).
  void closing(Connection* c) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!c->last) c->last = true, ++closing_;
  }
  /// The calling thread's connection `c` has been answered for the last time: its thread counts as
  /// free from now (it only closes the socket before it takes the next connection).
  void release(Connection* c) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (tl_released) return;
      tl_released = true;
      closing_ -= c->last;
      c->last = false;
      --busy_;
    }
    released_.notify_all();
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      for (const Connection* c : live_) ::shutdown(c->sock, SHUT_RD);  // waiting reads return at once
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  /// A kept-alive connection starts (+1) or stops (-1) waiting idle for its next request.
  void idle(int delta) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_ += delta;
    yielding_ = std::min(yielding_, idle_);
  }
  /// An idle connection asks whether it should give its thread up (true at most once per
  /// connection that needs the thread).
  bool should_yield() {
    std::lock_guard<std::mutex> lock(mu_);
    if (yielding_ == 0) return false;
    --yielding_;
    return true;
  }
  /// The calling thread's connection `c` starts (reading its first request since now).
  void add(Connection* c) {
    c->wake.fd = tl_wake_fd;
    c->wake.drain();
    std::lock_guard<std::mutex> lock(mu_);
    c->reading_since = Clock::now();
    live_.insert(c);
    if (stopping_) ::shutdown(c->sock, SHUT_RD);
  }
  void remove(Connection* c) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(c);
  }
  /// `c` starts (true) or stops (false) reading a request. An eviction that came as it stopped
  /// (its request is whole: it is served) passes to the next slowest request, if any.
  void reading(Connection* c, bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    c->reading_since = on ? Clock::now() : kNotReading;
    if (!on && c->wake.evicted.exchange(false)) evict_slowest();
  }
  /// Ends `sock` on the overflow thread after a lingering close (OverflowResponder::linger).
  void linger(int sock) { overflow_.linger(sock); }
  static ConnectionQueue* current() { return tl_queue; }

 private:
  // Evicts the connection that has been reading its request the longest, if longer than the
  // grace: its reads end at once. Call with mu_ held.
  bool evict_slowest() {
    const Clock::time_point cutoff = Clock::now() - grace_;
    Connection* slowest = nullptr;
    for (Connection* c : live_)
      if (c->reading_since <= cutoff && !c->wake.evicted && (!slowest || c->reading_since < slowest->reading_since))
        slowest = c;
    if (!slowest) return false;
    slowest->wake.evicted = true;
    const uint64_t one = 1;
    (void)!::write(slowest->wake.fd, &one, sizeof(one));
    return true;
  }

  void work() {
    tl_queue = this;
    tl_wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);  // -1: this thread's reads cannot be woken
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) break;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      tl_released = false;
      fn();
      std::lock_guard<std::mutex> lock(mu_);
      if (!tl_released) --busy_;
    }
    if (tl_wake_fd >= 0) ::close(tl_wake_fd);
  }

  // How long a new connection at the cap waits for a closing connection's thread, and for how
  // long after a connection went over the cap none waits.
  static constexpr Clock::duration kHandoff = std::chrono::milliseconds(20);
  static constexpr Clock::duration kPressure = std::chrono::seconds(1);
  static thread_local ConnectionQueue* tl_queue;
  static thread_local int tl_wake_fd;
  static thread_local bool tl_released;  // this thread's connection was released (release())
  int workers_;
  Clock::duration grace_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable released_;       // a thread was released (release())
  std::list<std::function<void()>> jobs_;  // guarded by mu_
  int busy_ = 0;                           // connections given a thread (queued or served)
  int idle_ = 0;                           // of them, kept-alive ones waiting for a request
  int yielding_ = 0;                       // idle ones asked to give their thread up
  int closing_ = 0;                        // of them, answering their last request
  Clock::time_point last_overflow_;        // when a connection last went over the cap
  bool stopping_ = false;
  std::set<Connection*> live_;             // connections being served
  std::vector<std::thread> threads_;
  OverflowResponder overflow_;
};
thread_local ConnectionQueue* ConnectionQueue::tl_queue = nullptr;
thread_local int ConnectionQueue::tl_wake_fd = -1;
thread_local bool ConnectionQueue::tl_released = false;

// Waits for a connection's next request: true when bytes (or EOF) arrive within the keep-alive
// timeout and the request deadline; false when the server stops, the connection is evicted, or
// (`kept_alive`: a request was already answered) a new connection needs this idle connection's
// thread.
bool await_request(const SocketStream& strm, const Connection& conn, const ConnectionLimits& l,
                   const std::atomic<socket_t>& server_sock, bool kept_alive) {
  if (strm.has_buffered()) return true;
  const auto until = Clock::now() + std::chrono::seconds(l.keep_alive_timeout_s);
  ConnectionQueue* q = kept_alive ? ConnectionQueue::current() : nullptr;
  if (q) q->idle(+1);
  bool ready = false;
  while (server_sock != INVALID_SOCKET && Clock::now() < until && strm.left_ms() > 0 && !conn.wake.evicted) {
    if (poll_one(conn.sock, POLLIN, 50)) {
      ready = true;
      break;
    }
    if (q && q->should_yield()) break;
  }
  if (q) q->idle(-1);
  return ready && !conn.wake.evicted;
}

// httplib guards only routing (handlers and the pre-routing handler) with its exception handler;
// an exception from a streamed response's content provider, the error handler or the Expect
// handler would leave the connection thread and end the process (std::terminate), every other
// request and stream with it. It ends its own connection only; said on stderr.
void contained_failure(const char* what) {
  std::fprintf(stderr, "llm0: a request failed while its response was written (%s); its connection "
               "was closed, the server keeps serving\n", what);
}

// The request asks to end its connection after the reply (httplib then closes it): Connection:
// close, or HTTP/1.0 without Connection: Keep-Alive.
bool last_request(const httplib::Request& q) {
  const std::string c = q.get_header_value("Connection");
  return c == "close" || (q.version == "HTTP/1.0" && c != "Keep-Alive");
}
}  // namespace

ConnectionServer::ConnectionServer(const ConnectionLimits& limits, OverflowRoutes routes)
    : limits_(limits), routes_(routes) {
  const int workers = std::max(1, limits.max_connections);
  const double grace = limits.reading_grace_s;
  const std::string busy = limits.command.empty() ? "" : limits.command + " --max-connections";
  new_task_queue = [workers, grace, routes, busy] { return new ConnectionQueue(workers, grace, routes, busy); };
  set_read_timeout(limits.read_timeout_s, 0);
  set_write_timeout(limits.write_timeout_s, 0);
  set_keep_alive_timeout(limits.keep_alive_timeout_s);
  set_keep_alive_max_count((size_t)std::max(1, limits.keep_alive_max_requests));
}

void ConnectionServer::set_backlog(int backlog) {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, backlog);  // a second listen() resizes the queue
}

int ConnectionServer::bind_listener(const std::string& host, int port) {
  const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  LLM0_CHECK(bound > 0, "cannot listen on {}:{} (address in use, or not an address of this machine)",
             host, port);
  set_backlog(1024);
  return bound;
}

// The handler, marking the request as read whole first (request_read()), runs under a CancelScope
// (core/cancel.h): work it abandons at a cancel_point() — its client is gone, or the server stops —
// ends its connection after the (unread) reply.
ConnectionServer& ConnectionServer::add(AddRoute add, const std::string& pattern, Handler handler) {
  (this->*add)(pattern, [this, h = std::move(handler)](const httplib::Request& q, httplib::Response& r) {
    request_read(last_request(q), q.version == "HTTP/1.1");
    CancelScope scope([this] { return stopping() || client_gone(probe_interim_response); });
    h(q, r);
    if (scope.fired()) close_after_response();
  });
  return *this;
}

ConnectionServer& ConnectionServer::Get(const std::string& p, Handler h) { return add(&httplib::Server::Get, p, std::move(h)); }
ConnectionServer& ConnectionServer::Post(const std::string& p, Handler h) { return add(&httplib::Server::Post, p, std::move(h)); }
ConnectionServer& ConnectionServer::Put(const std::string& p, Handler h) { return add(&httplib::Server::Put, p, std::move(h)); }
ConnectionServer& ConnectionServer::Patch(const std::string& p, Handler h) { return add(&httplib::Server::Patch, p, std::move(h)); }
ConnectionServer& ConnectionServer::Delete(const std::string& p, Handler h) { return add(&httplib::Server::Delete, p, std::move(h)); }

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  if (OverflowResponder* o = OverflowResponder::current()) {
    o->adopt(sock);
    return true;
  }
  ConnectionQueue* q = ConnectionQueue::current();
  Connection conn;
  conn.sock = sock;
  if (q) q->add(&conn);
  SocketStream strm(sock, limits_, conn.wake);
  conn.stream = &strm;
  tl_connection = &conn;
  bool ret = false;
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    const bool kept_alive = left < keep_alive_max_count_;
    strm.start_request();
    if (kept_alive && q) q->reading(&conn, false);  // idle until its next request's first byte
    if (!await_request(strm, conn, limits_, svr_sock_, kept_alive)) break;
    if (kept_alive && q) q->reading(&conn, true);
    conn.probed = false;
    bool closed = false;
    if (left == 1 && q) q->closing(&conn);
    try {
      ret = process_request(strm, left == 1, closed, nullptr);
    } catch (const std::exception& e) {  // see below
      contained_failure(e.what());
      ret = false, conn.close = true;
    } catch (...) {
      contained_failure("an unknown exception");
      ret = false, conn.close = true;
    }
    if (!ret && strm.written() == 0 && strm.received() > 0 && strm.cut() != Cut::none) {
      // Part of a request line, then nothing: httplib gives up without a reply. Answer 408.
      const std::string reply = raw_error_response(ApiError::request_timeout(request_timeout_message()));
      (void)strm.write(reply.data(), reply.size());
      routes_.on_refused();
      conn.close = true;
    }
    if (!ret || closed || conn.close || conn.wake.evicted) break;
  }
  tl_connection = nullptr;
  if (q) q->remove(&conn), q->release(&conn);  // this thread takes the next connection as soon as it closes this one
  if (conn.close && q) {  // the overflow thread drains and closes it; this thread is free at once
    ::shutdown(sock, SHUT_WR);
    q->linger(sock);
    return ret;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ret;
}

void request_read(bool last, bool interim) {
  if (tl_connection) tl_connection->interim = interim;
  ConnectionQueue* q = ConnectionQueue::current();
  if (!q || !tl_connection) return;
  q->reading(tl_connection, false);
  if (last) q->closing(tl_connection);
}

bool client_gone(const std::function<bool()>& probe) {
  Connection* c = tl_connection;
  if (!c) return false;
  const int ev = poll_one(c->sock, c->probed ? 0 : POLLRDHUP, 0);
  if (ev & (POLLERR | POLLHUP | POLLNVAL)) return true;
  if (!(ev & POLLRDHUP) || c->probed) return false;
  c->probed = true;  // the client sent FIN: closed, or only its write side shut? A reset will say.
  return !probe();
}

void close_after_response() {
  if (!tl_connection) return;
  tl_connection->close = true;
  if (ConnectionQueue* q = ConnectionQueue::current()) q->closing(tl_connection);
}

namespace {

// " (llm0 serve --read-timeout)": the option that sets a limit, when the command has one.
std::string option(const ConnectionLimits& l, const char* name) {
  return l.command.empty() ? "" : format(" ({} {})", l.command, name);
}

}  // namespace

std::string request_timeout_message() {
  const Connection* c = tl_connection;
  if (!c) return "";
  const ConnectionLimits& l = c->stream->limits();
  switch (c->stream->cut()) {
    case Cut::deadline:
      return format("the request was not received within {} s{}", l.request_timeout_s,
                    option(l, "--request-timeout"));
    case Cut::stall:
      return format("no byte of the request arrived for {} s{}", l.read_timeout_s, option(l, "--read-timeout"));
    case Cut::evicted:
      return format("the request was still arriving after {} s while every connection slot was taken{}: "
                    "the slowest request makes room for a new connection",
                    l.reading_grace_s, option(l, "--max-connections"));
    case Cut::none: break;
  }
  return "";
}

bool probe_interim_response() {
  Connection* c = tl_connection;
  if (!c || !c->interim) return true;  // no probe can be sent: taken as still there
  static const char kEarlyHints[] = "HTTP/1.1 103 Early Hints\r\n\r\n";
  return ::send(c->sock, kEarlyHints, sizeof(kEarlyHints) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) > 0;
}

}  // namespace llm0::serve
