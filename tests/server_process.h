// A server command (`llm0 serve`, `llm0 explore`) run as a child process on a free port for a
// test, and raw HTTP over a socket: shared by the tests that need the real programs (their signal
// handling) or bytes no HTTP client sends (repeated headers, Expect).
#pragma once
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "cli_runner.h"

namespace llm0::testing_fixtures {

/// `llm0 ARGS... --port 0` started in the background (a ChildProcess: stderr and stdout to `log`,
/// SIGKILLed at destruction if still running); port() once its "listening on
/// http://127.0.0.1:PORT" line is out, which the constructor waits for (60 s at most).
class ServerProcess : public ChildProcess {
 public:
  ServerProcess(std::vector<std::string> args, std::filesystem::path log)
      : ChildProcess(with_free_port(std::move(args)), std::move(log)) {
    // Loading stories260K takes well under a second; 60 s allows a busy machine.
    for (int i = 0; i < 600 && port_ == 0 && running(); ++i) {
      const std::string t = this->log(), head = "listening on http://127.0.0.1:";
      if (const size_t a = t.find(head); a != std::string::npos) {
        const size_t b = t.find_first_not_of("0123456789", a + head.size());
        if (b != std::string::npos && b > a + head.size()) port_ = std::stoi(t.substr(a + head.size(), b));
      }
      if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  /// The port it listens on; 0 if it never said so.
  int port() const { return port_; }
  /// User + system CPU time it has used so far, in clock ticks (/proc/PID/stat fields 14, 15).
  long cpu_ticks() const {
    const std::string s = read_file("/proc/" + std::to_string(pid()) + "/stat");
    const size_t close = s.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) return -1;
    std::istringstream in(s.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && in >> field; ++i) {
      if (i == 14) utime = std::stol(field);
      if (i == 15) stime = std::stol(field);
    }
    return utime + stime;
  }

 private:
  static std::vector<std::string> with_free_port(std::vector<std::string> args) {
    args.push_back("--port");
    args.push_back("0");
    return args;
  }
  int port_ = 0;
};

/// A TCP connection to 127.0.0.1:port (fd -1 when it could not connect), closed at destruction.
struct RawConnection {
  int fd = -1;
  explicit RawConnection(int port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, (sockaddr*)&a, sizeof(a)) != 0) ::close(fd), fd = -1;
  }
  ~RawConnection() { close(); }
  void close() {
    if (fd >= 0) ::close(fd), fd = -1;
  }
  bool send(const std::string& s) const {
    return fd >= 0 && ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == (ssize_t)s.size();
  }
  /// What arrives until the server closes the connection, `ms` pass, or (when `until` is not
  /// empty) the bytes received contain `until`.
  std::string receive(int ms, const std::string& until = "") const {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (fd >= 0 && (until.empty() || out.find(until) == std::string::npos)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      pollfd p{fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, (int)left.count()) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, (size_t)n);
    }
    return out;
  }
};

/// The status code of the first response line of `reply` ("HTTP/1.1 413 ..." -> 413; 0 if none).
inline int status_of(const std::string& reply) {
  if (reply.rfind("HTTP/1.", 0) != 0 || reply.size() < 12) return 0;
  return std::atoi(reply.substr(9, 3).c_str());
}

}  // namespace llm0::testing_fixtures
