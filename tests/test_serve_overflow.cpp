// The over-cap responder of `llm0 serve` (src/serve/overflow_responder.h) over socket pairs: when
// it holds as many sockets as it may, a new one makes the OLDEST go (a request not answered yet
// gets 408 request_timeout) and the newest is answered — before the review it closed the newest,
// so /health went dark while slow clients filled it. Also: a request whose headers stall past 2 s
// gets 408, and a lingering close ends when the client closes.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>

#include "serve/overflow_responder.h"

using namespace llm0::serve;

namespace {

// A connected pair: [0] the client's end, [1] the server's.
struct Pair {
  int fd[2] = {-1, -1};
  Pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~Pair() { ::close(fd[0]); }  // fd[1] belongs to the responder once adopted
  void send(const std::string& s) const { ASSERT_EQ(::write(fd[0], s.data(), s.size()), (ssize_t)s.size()); }
};

// Everything the client end receives until the responder closes its end (or `ms` pass: then
// "<open>" is appended).
std::string read_all(int fd, int ms) {
  std::string out;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, (int)left.count()) <= 0) return out + "<open>";
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) return out;
    out.append(buf, (size_t)n);
  }
}

bool open_after(int fd, int ms) { return read_all(fd, ms).ends_with("<open>"); }

}  // namespace

TEST(ServeOverflow, AFullResponderDropsItsOldestClientAndAnswersTheNewest) {
  std::atomic<int> refused{0};
  OverflowResponder r([] { return std::string("m 1\n"); }, [&] { ++refused; }, /*max_clients=*/2);
  Pair oldest, middle, newest;
  oldest.send("POST /v1/completions HTTP/1.1\r\nHost: x\r\n");  // headers not finished
  r.enqueue([&] { r.adopt(oldest.fd[1]); });
  r.enqueue([&] { r.adopt(middle.fd[1]); });  // sends nothing yet
  EXPECT_TRUE(open_after(oldest.fd[0], 100));
  newest.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  r.enqueue([&] { r.adopt(newest.fd[1]); });
  const std::string health = read_all(newest.fd[0], 1500);
  EXPECT_EQ(health.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << health;
  EXPECT_TRUE(health.ends_with(R"({"status":"ok"})")) << health;
  const std::string dropped = read_all(oldest.fd[0], 500);
  EXPECT_EQ(dropped.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << dropped;
  EXPECT_NE(dropped.find("\r\nConnection: close\r\n"), std::string::npos) << dropped;
  EXPECT_NE(dropped.find(R"("code":"request_timeout")"), std::string::npos) << dropped;
  EXPECT_EQ(refused, 1);
  // The middle one is still held: a request now is answered (503 for anything but /health, /metrics).
  middle.send("POST /v1/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
  const std::string busy = read_all(middle.fd[0], 1500);
  EXPECT_EQ(busy.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << busy;
  EXPECT_NE(busy.find(R"("code":"server_busy")"), std::string::npos) << busy;
  EXPECT_EQ(refused, 2);
}

// The 503 names the option that sets the slots of the command serving (llm0 serve's by default);
// `llm0 explore` has none and passes "": the message then names no option of another command.
TEST(ServeOverflow, TheBusyMessageNamesOnlyTheServingCommandsOption) {
  for (const std::string option : {"llm0 serve --max-connections", ""}) {
    OverflowResponder r([] { return std::string(); }, [] {}, OverflowResponder::kMaxClients, option);
    Pair p;
    p.send("GET /explore/api/info HTTP/1.1\r\nHost: x\r\n\r\n");
    r.enqueue([&] { r.adopt(p.fd[1]); });
    const std::string busy = read_all(p.fd[0], 1500);
    EXPECT_EQ(busy.rfind("HTTP/1.1 503 ", 0), 0u) << busy;
    EXPECT_NE(busy.find("retry later"), std::string::npos) << busy;
    if (option.empty()) {
      EXPECT_EQ(busy.find("llm0 serve"), std::string::npos) << busy;
    } else {
      EXPECT_NE(busy.find("(llm0 serve --max-connections)"), std::string::npos) << busy;
    }
  }
}

TEST(ServeOverflow, HeadersStalledPastTwoSecondsGet408AndSilenceIsClosed) {
  std::atomic<int> refused{0};
  OverflowResponder r([] { return std::string(); }, [&] { ++refused; });
  Pair partial, silent;
  partial.send("GET /health HTTP/1.1\r\nHost: x\r\n");  // a whole request line, no blank line
  const auto t0 = std::chrono::steady_clock::now();
  r.enqueue([&] { r.adopt(partial.fd[1]); });
  r.enqueue([&] { r.adopt(silent.fd[1]); });
  const std::string reply = read_all(partial.fd[0], 4000);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(reply.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << reply;
  EXPECT_GE(s, 1.9);
  EXPECT_LT(s, 3.5);
  EXPECT_EQ(read_all(silent.fd[0], 1500), "");  // closed without a reply
  EXPECT_EQ(refused, 1);
}

TEST(ServeOverflow, ALingeringCloseEndsWhenTheClientCloses) {
  OverflowResponder r([] { return std::string(); }, [] {});
  int fd[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0);
  r.linger(fd[1]);  // (the HTTP thread shuts its write side first; left open here, so the client
                    // end sees EOF only when the responder closes)
  ASSERT_EQ(::write(fd[0], "rest of a body", 14), 14);  // read and dropped
  EXPECT_TRUE(open_after(fd[0], 200));                    // held while the client sends
  ::shutdown(fd[0], SHUT_WR);                             // the client is done
  EXPECT_EQ(read_all(fd[0], 1000), "");                   // the responder closes its end
  ::close(fd[0]);
}
