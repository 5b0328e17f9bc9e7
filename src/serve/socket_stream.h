// SocketStream: cpp-httplib's Stream over one connected socket of a ConnectionServer
// (connection_server.h), with the limits of a request read: reads are buffered (httplib's line
// reader asks for one byte at a time), each read waits at most `read_timeout_s` and never past the
// request's deadline, and a read can be woken and ended at once when the connection is evicted
// (a slow request making room for a new connection at the cap). Writes wait at most
// `write_timeout_s` for room and do not test whether the peer still sends (so a half-closed client
// is answered).
#pragma once
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>

#include "serve/connection_limits.h"

namespace llm0::serve {

/// poll() on one descriptor, EINTR retried: the revents, 0 on timeout, POLLERR on failure.
int poll_one(int fd, short events, int timeout_ms);

/// Why a read of a request found no byte: the request deadline passed (deadline), a whole read
/// timeout went by without a byte (stall), or the connection was evicted to make room (evicted).
enum class Cut { none, deadline, stall, evicted };

/// How another thread ends a connection's reads: it sets `evicted` and writes to `fd` (an
/// eventfd that the reads poll beside the socket). fd -1: nothing wakes the reads.
struct Wake {
  int fd = -1;
  std::atomic<bool> evicted{false};
  /// Empties the eventfd (a wake-up meant for an earlier connection of the same thread).
  void drain() const;
};

class SocketStream final : public httplib::Stream {
 public:
  /// `limits` and `wake` must outlive the stream.
  SocketStream(int sock, const ConnectionLimits& limits, const Wake& wake);

  /// Starts the next request: its deadline is request_timeout_s from now; cut(), received() and
  /// written() start again.
  void start_request();
  bool has_buffered() const { return pos_ < end_; }
  /// Why the last read of this request found no byte in time (Cut::none: it did not).
  Cut cut() const { return cut_; }
  /// Bytes of this request received (a pipelined request's bytes already read included), and of
  /// its response written, so far.
  size_t received() const { return received_; }
  size_t written() const { return written_; }
  /// Milliseconds to the deadline (<= 0: passed).
  long long left_ms() const;
  const ConnectionLimits& limits() const { return limits_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(false, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  void address(bool remote, std::string& ip, int& port) const;

  int sock_;
  const ConnectionLimits& limits_;
  const Wake& wake_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::now();
  mutable Cut cut_ = Cut::none;
  size_t received_ = 0, written_ = 0;
  char buf_[4096];
  size_t pos_ = 0, end_ = 0;
};

}  // namespace llm0::serve
