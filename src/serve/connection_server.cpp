// Connection cap, request deadline, keep-alive and client-gone checks over cpp-httplib
// (connection_server.h). httplib's accept loop hands each accepted socket to a TaskQueue job that
// calls the virtual process_and_close_socket(); the queue here decides, in the accept thread,
// whether the connection gets an HTTP thread or goes to the OverflowResponder, and the override
// serves the connection through a SocketStream whose reads stop at the request's deadline.
#include "serve/connection_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <set>
#include <system_error>

#include "core/check.h"
#include "serve/overflow_responder.h"
#include "serve/raw_response.h"

namespace llm0::serve {

namespace {
using Clock = std::chrono::steady_clock;

int poll_one(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  int r;
  do r = ::poll(&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  return r > 0 ? p.revents : (r == 0 ? 0 : POLLERR);
}


// Why a read of a request found no byte: the request deadline passed, or --read-timeout seconds
// went by without a byte (a stall).
enum class Cut { none, deadline, stall };

// httplib's Stream over a connected socket: reads buffered (httplib's line reader reads a byte at a
// time), each read waiting at most read_timeout and never past the request's deadline; writes
// wait at most write_timeout for room and do not test whether the peer still sends (so a
// half-closed client is answered).
class SocketStream final : public httplib::Stream {
 public:
  SocketStream(int sock, const ConnectionLimits& l) : sock_(sock), limits_(l) {}

  /// The deadline of the next request's headers and body: request_timeout from now.
  void start_request() {
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(limits_.request_timeout_s));
    cut_ = Cut::none;
    received_ = end_ - pos_;  // bytes of a pipelined request already read count as its own
    written_ = 0;
  }
  bool has_buffered() const { return pos_ < end_; }
  /// Why the last read of this request found no byte in time (Cut::none: it did not).
  Cut cut() const { return cut_; }
  /// Bytes of this request received, and of its response written, so far.
  size_t received() const { return received_; }
  size_t written() const { return written_; }
  /// Milliseconds to the deadline (<= 0: passed).
  long long left_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
  }

  bool is_readable() const override {
    if (has_buffered()) return true;
    const long long ms = std::min<long long>(left_ms(), 1000LL * limits_.read_timeout_s);
    const int ev = ms > 0 ? poll_one(sock_, POLLIN, (int)ms) : 0;
    if (ev == 0) cut_ = left_ms() <= 0 ? Cut::deadline : Cut::stall;  // nothing came in time
    return (ev & (POLLIN | POLLHUP | POLLERR)) != 0;
  }
  bool is_writable() const override {
    return (poll_one(sock_, POLLOUT, 1000 * limits_.write_timeout_s) & POLLOUT) != 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!has_buffered()) {
      if (!is_readable()) return -1;
      ssize_t n;
      do n = ::recv(sock_, buf_, sizeof(buf_), 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      pos_ = 0;
      end_ = (size_t)n;
      received_ += (size_t)n;
    }
    const size_t n = std::min(size, end_ - pos_);
    std::copy(buf_ + pos_, buf_ + pos_ + n, ptr);
    pos_ += n;
    return (ssize_t)n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n > 0) written_ += (size_t)n;
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(false, ip, port); }
  socket_t socket() const override { return sock_; }
  const ConnectionLimits& limits() const { return limits_; }

 private:
  void address(bool remote, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof(a);
    if ((remote ? getpeername(sock_, (sockaddr*)&a, &len) : getsockname(sock_, (sockaddr*)&a, &len)) != 0) return;
    char host[NI_MAXHOST];
    if (getnameinfo((sockaddr*)&a, len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) == 0) ip = host;
    port = a.ss_family == AF_INET6 ? ntohs(((sockaddr_in6*)&a)->sin6_port) : ntohs(((sockaddr_in*)&a)->sin_port);
  }

  int sock_;
  const ConnectionLimits& limits_;
  Clock::time_point deadline_ = Clock::now();
  mutable Cut cut_ = Cut::none;
  size_t received_ = 0, written_ = 0;
  char buf_[4096];
  size_t pos_ = 0, end_ = 0;
};

// The connection served by the calling thread (for client_gone(), request_timeout_message()).
struct Connection {
  int sock = -1;
  const SocketStream* stream = nullptr;
  bool probed = false;  // a FIN was seen and the probe written (for this request)
  bool close = false;   // end the connection after this response
};
thread_local Connection* tl_connection = nullptr;

// httplib's TaskQueue: `workers` threads, one per connection; a connection that finds every
// thread busy goes to the OverflowResponder. Tracks live sockets, so shutdown() can end the reads
// of connections still waiting for a request.
class ConnectionQueue final : public httplib::TaskQueue {
 public:
  ConnectionQueue(int workers, const OverflowRoutes& routes)
      : workers_(workers), overflow_(routes.metrics_text, routes.on_refused) {
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
      std::lock_guard<std::mutex> lock(mu_);
      // Every thread busy, but some only wait idle on kept-alive connections: one of them gives
      // its thread up (within 50 ms) and this connection takes it.
      const bool yield = busy_ >= workers_ && idle_ > yielding_;
      if (busy_ < workers_ || yield) {
        yielding_ += yield;
        ++busy_;
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
    }
    overflow_.enqueue(std::move(fn));
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
      for (int s : live_) ::shutdown(s, SHUT_RD);  // waiting reads return at once
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
  void add(int sock) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(sock);
    if (stopping_) ::shutdown(sock, SHUT_RD);
  }
  void remove(int sock) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(sock);
  }
  static ConnectionQueue* current() { return tl_queue; }

 private:
  void work() {
    tl_queue = this;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) break;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
  }

  static thread_local ConnectionQueue* tl_queue;
  int workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::list<std::function<void()>> jobs_;  // guarded by mu_
  int busy_ = 0;                           // connections given a thread (queued or served)
  int idle_ = 0;                           // of them, kept-alive ones waiting for a request
  int yielding_ = 0;                       // idle ones asked to give their thread up
  bool stopping_ = false;
  std::set<int> live_;                     // sockets being served
  std::vector<std::thread> threads_;
  OverflowResponder overflow_;
};
thread_local ConnectionQueue* ConnectionQueue::tl_queue = nullptr;

// Waits for a connection's next request: true when bytes (or EOF) arrive within the keep-alive
// timeout and the request deadline; false when the server stops, or (`kept_alive`: a request was
// already answered) a new connection needs this idle connection's thread.
bool await_request(const SocketStream& strm, int sock, const ConnectionLimits& l,
                   const std::atomic<socket_t>& server_sock, bool kept_alive) {
  if (strm.has_buffered()) return true;
  const auto until = Clock::now() + std::chrono::seconds(l.keep_alive_timeout_s);
  ConnectionQueue* q = kept_alive ? ConnectionQueue::current() : nullptr;
  if (q) q->idle(+1);
  bool ready = false;
  while (server_sock != INVALID_SOCKET && Clock::now() < until && strm.left_ms() > 0) {
    if (poll_one(sock, POLLIN, 50)) {
      ready = true;
      break;
    }
    if (q && q->should_yield()) break;
  }
  if (q) q->idle(-1);
  return ready;
}

// A lingering close (as nginx's lingering_close): the client may still be sending a request we
// did not read; closing now would answer it with a reset, which can destroy our reply before the
// client reads it. So the write side is shut first and what arrives is dropped until the client
// closes, 500 ms pass without data, or 2 s in all.
void linger(int sock) {
  ::shutdown(sock, SHUT_WR);
  const auto until = Clock::now() + std::chrono::seconds(2);
  char buf[16384];
  for (auto now = Clock::now(); now < until; now = Clock::now()) {
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
    if (!(poll_one(sock, POLLIN, (int)std::min(500LL, ms)) & (POLLIN | POLLHUP | POLLERR))) return;
    if (::recv(sock, buf, sizeof(buf), 0) <= 0) return;
  }
}
}  // namespace

ConnectionServer::ConnectionServer(const ConnectionLimits& limits, OverflowRoutes routes)
    : limits_(limits), routes_(routes) {
  const int workers = std::max(1, limits.max_connections);
  new_task_queue = [workers, routes] { return new ConnectionQueue(workers, routes); };
  set_read_timeout(limits.read_timeout_s, 0);
  set_write_timeout(limits.write_timeout_s, 0);
  set_keep_alive_timeout(limits.keep_alive_timeout_s);
}

void ConnectionServer::set_backlog(int backlog) {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, backlog);  // a second listen() resizes the queue
}

bool ConnectionServer::process_and_close_socket(socket_t sock) {
  if (OverflowResponder* o = OverflowResponder::current()) {
    o->adopt(sock);
    return true;
  }
  ConnectionQueue* q = ConnectionQueue::current();
  if (q) q->add(sock);
  SocketStream strm(sock, limits_);
  Connection conn{sock, &strm};
  tl_connection = &conn;
  bool ret = false;
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    strm.start_request();
    if (!await_request(strm, sock, limits_, svr_sock_, left < keep_alive_max_count_)) break;
    conn.probed = false;
    bool closed = false;
    ret = process_request(strm, left == 1, closed, nullptr);
    if (!ret && strm.written() == 0 && strm.received() > 0 && strm.cut() != Cut::none) {
      // Part of a request line, then nothing: httplib gives up without a reply. Answer 408.
      const std::string reply = raw_error_response(ApiError::request_timeout(request_timeout_message()));
      (void)strm.write(reply.data(), reply.size());
      routes_.on_refused();
      conn.close = true;
    }
    if (!ret || closed || conn.close) break;
  }
  tl_connection = nullptr;
  if (conn.close) linger(sock);
  if (q) q->remove(sock);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ret;
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
  if (tl_connection) tl_connection->close = true;
}

std::string request_timeout_message() {
  const Connection* c = tl_connection;
  if (!c) return "";
  const ConnectionLimits& l = c->stream->limits();
  switch (c->stream->cut()) {
    case Cut::deadline:
      return format("the request was not received within {} s (llm0 serve --request-timeout)", l.request_timeout_s);
    case Cut::stall:
      return format("no byte of the request arrived for {} s (llm0 serve --read-timeout)", l.read_timeout_s);
    case Cut::none: break;
  }
  return "";
}

bool probe_interim_response() {
  Connection* c = tl_connection;
  if (!c) return true;
  static const char kEarlyHints[] = "HTTP/1.1 103 Early Hints\r\n\r\n";
  return ::send(c->sock, kEarlyHints, sizeof(kEarlyHints) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) > 0;
}

}  // namespace llm0::serve
