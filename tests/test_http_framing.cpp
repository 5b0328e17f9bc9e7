// One body-framing policy for both servers (src/http/framing.h): the same table of requests — one
// Content-Length, two equal, two that differ (in both orders), Content-Length with chunked,
// chunked alone, none, malformed, a GET with a body, over the limit, an unknown Expect,
// 100-continue spelt in capitals or sent by HTTP/1.0 (417), a body over the explorer's own limit
// but under serve's --max-body (413 from both, without "100 Continue"), and
// Expect: 100-continue over the limit (refused without "100 Continue") and within it (invited,
// then answered) — sent over raw sockets to `llm0 explore` and to `llm0 serve` (its /explore/
// mount: the same endpoint on both), each answered with the same status. Before the policy,
// explore used the first of two Content-Lengths (and waited 10 s for a longer second body, 408),
// and both answered "100 Continue" before refusing an over-limit body.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "explore_fixtures.h"
#include "server_process.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using testing_fixtures::RawConnection;
using testing_fixtures::ServerProcess;
using testing_fixtures::status_of;

struct Row {
  std::string name;
  std::string head;  // request line and headers, without the blank line
  std::string body;
  int status;
};

// Answers come at once (the servers' read timeout is 10 s): 5 s tells an answer from a wait.
constexpr int kAnswerMs = 5000;

std::vector<Row> framing_table() {
  const std::string config = testing_fixtures::read_file(fs::path(LLM0_SOURCE_DIR) / "configs/lesson-tiny.json");
  const std::string n = std::to_string(config.size()), longer = std::to_string(config.size() + 7);
  const std::string post = "POST /explore/api/kv?context=16 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           "Content-Type: application/json\r\n";
  const std::string chunked = "5\r\n{\"a\":\r\n0\r\n\r\n";
  return {
      {"one Content-Length", post + "Content-Length: " + n, config, 200},
      {"two equal Content-Lengths", post + "Content-Length: " + n + "\r\nContent-Length: " + n, config, 200},
      {"two Content-Lengths, the body's first", post + "Content-Length: " + n + "\r\nContent-Length: " + longer, config, 400},
      {"two Content-Lengths, the body's second", post + "Content-Length: " + longer + "\r\nContent-Length: " + n, config, 400},
      {"Content-Length with chunked", post + "Content-Length: 5\r\nTransfer-Encoding: chunked", chunked, 400},
      {"chunked alone", post + "Transfer-Encoding: chunked", chunked, 411},
      {"no Content-Length", post.substr(0, post.size() - 2), "", 411},
      {"a negative Content-Length", post + "Content-Length: -5", "", 400},
      {"a GET with a body", "GET /explore/api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5", "hello", 400},
      {"over both limits", post + "Content-Length: 99999999", "", 413},
      {"an unknown expectation", post + "Content-Length: " + n + "\r\nExpect: teapot", config, 417},
      // httplib answers only the lowercase spelling with 100 Continue: another one waited 10 s (408)
      {"100-continue in another letter case", post + "Content-Length: " + n + "\r\nExpect: 100-Continue", config, 417},
      // an HTTP/1.0 request may take no 1xx response (RFC 9110 §15.2): was "100 Continue" first
      {"Expect: 100-continue in an HTTP/1.0 request",
       "POST /explore/api/kv?context=16 HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\n"
       "Expect: 100-continue\r\nContent-Length: " + n, "", 417},
      // the explorer's own 1 MiB, under serve's 4 MiB --max-body: serve invited and read it all
      {"over the explorer's limit only, with Expect", post + "Expect: 100-continue\r\nContent-Length: 2000000", "", 413},
  };
}

// The statuses `port` answers: one per table row, then Expect: 100-continue over the limit (the
// final status; -1 when "100 Continue" came first), then Expect: 100-continue within it (the final
// status after the body; -1 when the body was not invited).
std::vector<int> statuses(int port) {
  std::vector<int> out;
  for (const Row& r : framing_table()) {
    RawConnection c(port);
    EXPECT_TRUE(c.send(r.head + "\r\n\r\n" + r.body)) << r.name;
    out.push_back(status_of(c.receive(kAnswerMs)));
  }
  const std::string post = "POST /explore/api/kv?context=16 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           "Content-Type: application/json\r\nExpect: 100-continue\r\n";
  {
    RawConnection c(port);
    EXPECT_TRUE(c.send(post + "Content-Length: 99999999\r\n\r\n"));
    const std::string reply = c.receive(kAnswerMs);
    out.push_back(reply.find("100 Continue") != std::string::npos ? -1 : status_of(reply));
  }
  {
    const std::string config = testing_fixtures::read_file(fs::path(LLM0_SOURCE_DIR) / "configs/lesson-tiny.json");
    RawConnection c(port);
    EXPECT_TRUE(c.send(post + "Content-Length: " + std::to_string(config.size()) + "\r\n\r\n"));
    const std::string interim = c.receive(kAnswerMs, "\r\n\r\n");
    if (interim.rfind("HTTP/1.1 100 Continue\r\n", 0) != 0) {
      out.push_back(-1);
    } else {
      EXPECT_TRUE(c.send(config));
      out.push_back(status_of(c.receive(kAnswerMs)));
    }
  }
  return out;
}

TEST(HttpFraming, BothServersAnswerTheFramingTableAlike) {
  testing_fixtures::ExploreModelDir dir;
  ServerProcess explore({"explore"}, dir.dir() / "explore.log");
  ServerProcess serve({"serve", "--model", dir.model()}, dir.dir() / "serve.log");
  ASSERT_GT(explore.port(), 0) << explore.log();
  ASSERT_GT(serve.port(), 0) << serve.log();
  std::vector<int> want;
  std::vector<std::string> names;
  for (const Row& r : framing_table()) want.push_back(r.status), names.push_back(r.name);
  want.push_back(413), names.push_back("Expect: 100-continue over the limit (no 100 Continue)");
  want.push_back(200), names.push_back("Expect: 100-continue within the limit (100 Continue, then the body)");
  const std::vector<int> e = statuses(explore.port()), s = statuses(serve.port());
  ASSERT_EQ(e.size(), want.size());
  ASSERT_EQ(s.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(e[i], want[i]) << "llm0 explore: " << names[i];
    EXPECT_EQ(s[i], want[i]) << "llm0 serve: " << names[i];
  }
}

// A client of HTTP/1.0 that shuts its write side during a lesson gets the lesson's answer and no
// 1xx interim response first (the disconnect probe writes "103 Early Hints" to HTTP/1.1 only).
TEST(HttpFraming, AnHttp10ClientGetsNoInterimResponse) {
  testing_fixtures::ExploreModelDir dir;
  ServerProcess explore({"explore"}, dir.dir() / "explore.log");
  ASSERT_GT(explore.port(), 0) << explore.log();
  RawConnection c(explore.port());
  ASSERT_TRUE(c.send("GET /explore/api/lesson/kv-cache?prompt-len=5&generate=4&up-to=200 HTTP/1.0\r\n"
                     "Host: x\r\n\r\n"));
  ::shutdown(c.fd, SHUT_WR);
  const std::string reply = c.receive(60000);
  EXPECT_EQ(status_of(reply), 200) << reply.substr(0, 200);
  EXPECT_EQ(reply.find("HTTP/1.1 1"), std::string::npos) << reply.substr(0, 200);
}

}  // namespace
}  // namespace llm0
