// Reads and writes of one connection under the request's limits (socket_stream.h).
#include "serve/socket_stream.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>


namespace llm0::serve {

using Clock = std::chrono::steady_clock;

int poll_one(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int r;
  do r = ::poll(&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  return r > 0 ? p.revents : (r == 0 ? 0 : POLLERR);
}

void Wake::drain() const {
  uint64_t n;
  if (fd >= 0) (void)!::read(fd, &n, sizeof(n));  // non-blocking: nothing to read is fine
}

SocketStream::SocketStream(int sock, const ConnectionLimits& limits, const Wake& wake)
    : sock_(sock), limits_(limits), wake_(wake) {}

void SocketStream::start_request() {
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(limits_.request_timeout_s));
  cut_ = Cut::none;
  received_ = end_ - pos_;
  written_ = 0;
}

long long SocketStream::left_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
}

bool SocketStream::is_readable() const {
  if (has_buffered()) return true;
  for (;;) {
    if (wake_.evicted) {
      cut_ = Cut::evicted;
      return false;
    }
    const long long ms = std::min<long long>(left_ms(), 1000LL * limits_.read_timeout_s);
    if (ms <= 0) {
      cut_ = Cut::deadline;
      return false;
    }
    pollfd p[2] = {{sock_, POLLIN, 0}, {wake_.fd, POLLIN, 0}};  // fd -1 is not polled
    const int r = ::poll(p, 2, (int)ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {  // nothing came in time
      cut_ = left_ms() <= 0 ? Cut::deadline : Cut::stall;
      return false;
    }
    if (wake_.evicted) continue;  // reported above, even if bytes came too
    if (p[0].revents) return (p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    wake_.drain();  // a wake-up for an eviction that was taken back
  }
}

bool SocketStream::is_writable() const {
  return (poll_one(sock_, POLLOUT, 1000 * limits_.write_timeout_s) & POLLOUT) != 0;
}

ssize_t SocketStream::read(char* ptr, size_t size) {
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

ssize_t SocketStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  ssize_t n;
  do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n > 0) written_ += (size_t)n;
  return n;
}

void SocketStream::address(bool remote, std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof(a);
  if ((remote ? getpeername(sock_, (sockaddr*)&a, &len) : getsockname(sock_, (sockaddr*)&a, &len)) != 0) return;
  char host[NI_MAXHOST];
  if (getnameinfo((sockaddr*)&a, len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) == 0) ip = host;
  port = a.ss_family == AF_INET6 ? ntohs(((sockaddr_in6*)&a)->sin6_port) : ntohs(((sockaddr_in*)&a)->sin_port);
}

}  // namespace llm0::serve
