// The explorer's HTTP details over a real socket (src/explore/explore_server.h, explore_http.h):
// a form-encoded body over the HTTP library's own limit is refused naming that limit and type; a
// malformed Content-Length is refused at once (400), a body shorter than its Content-Length gets
// 408 with an error object naming no option of another command; a method a page or endpoint does
// not take gets 405 with an Allow header (RFC 9110 §15.5.6), an unknown path 404.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "explore/explore_server.h"
#include "server_process.h"

namespace llm0 {
namespace {

using explore::ExploreApi;
using nlohmann::json;
using testing_fixtures::RawConnection;

// Sends `request` on a new connection to 127.0.0.1:port and returns what arrives until the server
// closes it or `ms` pass (then "" if nothing came).
std::string raw_exchange(int port, const std::string& request, int ms) {
  const RawConnection c(port);
  return c.send(request) ? c.receive(ms) : "";
}

// The error object of a raw reply ("" when there is none).
std::string error_code(const std::string& reply) {
  const size_t body = reply.find("\r\n\r\n");
  if (body == std::string::npos) return "";
  const json j = json::parse(reply.substr(body + 4), nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"]["code"].get<std::string>() : "";
}

class ExploreHttp : public testing::Test {
 protected:
  explicit ExploreHttp(const serve::ConnectionLimits& limits = explore::explore_limits())
      : server_(api_, limits) {
    port_ = server_.bind_listener("127.0.0.1", 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ExploreHttp() override {
    server_.stop();
    thread_.join();
  }
  ExploreApi api_{{"", "zh"}};
  explore::ExploreServer server_;
  int port_ = 0;
  std::thread thread_;
};

TEST_F(ExploreHttp, AFormEncodedBodyOverItsLimitNamesThatLimitAndType) {
  httplib::Client c("127.0.0.1", port_);
  const std::string form = "application/x-www-form-urlencoded";
  const auto big = c.Post("/explore/api/kv", std::string(8193, 'a'), form.c_str());
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  const std::string msg = json::parse(big->body)["error"]["message"];
  EXPECT_NE(msg.find("8192 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find(form), std::string::npos) << msg;
  // At the limit it is read (and refused as a config.json); as JSON the same size is read too.
  const auto at = c.Post("/explore/api/kv", std::string(8192, 'a'), form.c_str());
  ASSERT_TRUE(at);
  EXPECT_EQ(at->status, 400) << at->body;
  const auto json_body = c.Post("/explore/api/kv", std::string(8193, ' ') + "{}", "application/json");
  ASSERT_TRUE(json_body);
  EXPECT_EQ(json_body->status, 400) << json_body->body;
  EXPECT_NE(json_body->body.find("config.json"), std::string::npos) << json_body->body;
}

// The server's read timeout is 10 s (ConnectionLimits' default): an answer within half of it was
// not waiting for a body that never comes.
TEST_F(ExploreHttp, AMalformedContentLengthIsRefusedAtOnce) {
  for (const char* length : {"abc", "-5", "1e3", "12 34"}) {
    const std::string reply = raw_exchange(port_, std::string("POST /explore/api/kv HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: ") + length + "\r\n\r\n{}", 5000);
    EXPECT_EQ(reply.rfind("HTTP/1.1 400 ", 0), 0u) << length << ": " << reply;
    EXPECT_EQ(error_code(reply), "bad_request") << reply;
    EXPECT_NE(reply.find("Content-Length header"), std::string::npos) << reply;
  }
  // A length past 64 bits is a number too, over any limit.
  for (const char* length : {"1048577", "99999999999999999999"}) {
    const std::string huge = raw_exchange(port_, std::string("POST /explore/api/kv HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: ") + length + "\r\n\r\n{}", 5000);
    EXPECT_EQ(huge.rfind("HTTP/1.1 413 ", 0), 0u) << huge;
    EXPECT_EQ(error_code(huge), "too_large") << huge;
  }
}

class ExploreHttpShortTimeout : public ExploreHttp {
 protected:
  static serve::ConnectionLimits limits() {
    serve::ConnectionLimits l = explore::explore_limits();
    l.read_timeout_s = 1;
    return l;
  }
  ExploreHttpShortTimeout() : ExploreHttp(limits()) {}
};

TEST_F(ExploreHttpShortTimeout, ABodyShorterThanItsContentLengthGets408) {
  const std::string reply = raw_exchange(port_, "POST /explore/api/kv HTTP/1.1\r\nHost: x\r\n"
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}", 8000);
  EXPECT_EQ(reply.rfind("HTTP/1.1 408 ", 0), 0u) << reply;
  EXPECT_EQ(error_code(reply), "request_timeout") << reply;
  EXPECT_NE(reply.find("no byte of the request arrived for 1 s"), std::string::npos) << reply;
  EXPECT_EQ(reply.find("llm0 serve"), std::string::npos) << "an option of another command: " << reply;
}

TEST_F(ExploreHttp, OtherMethodsGet405WithAllowAndUnknownPaths404) {
  httplib::Client c("127.0.0.1", port_);
  auto expect = [](const httplib::Result& r, int status, const std::string& allow, const char* what) {
    ASSERT_TRUE(r) << what;
    EXPECT_EQ(r->status, status) << what << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Allow"), allow) << what;
    const json j = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(j.is_object() && j.contains("error")) << what << ": " << r->body;
    EXPECT_EQ(j["error"]["code"], status == 405 ? "method_not_allowed" : "not_found") << what;
  };
  for (const char* path : {"/explore/api/info", "/explore/api/lesson/kv-cache", "/explore/api/kv/reference/deepseek-v2"}) {
    expect(c.Delete(path), 405, "GET, HEAD", path);
    expect(c.Put(path, "{}", "application/json"), 405, "GET, HEAD", path);
    expect(c.Patch(path, "{}", "application/json"), 405, "GET, HEAD", path);
  }
  expect(c.Post("/explore/api/info", "{}", "application/json"), 405, "GET, HEAD", "POST info");
  expect(c.Get("/explore/api/kv"), 405, "POST", "GET kv");
  expect(c.Delete("/explore/api/kv"), 405, "POST", "DELETE kv");
  for (const char* path : {"/", "/explore", "/explore/", "/explore/index.html", "/explore/js/api.js"}) {
    expect(c.Delete(path), 405, "GET, HEAD", path);
    expect(c.Put(path, "x", "text/plain"), 405, "GET, HEAD", path);
    expect(c.Patch(path, "x", "text/plain"), 405, "GET, HEAD", path);
    expect(c.Post(path, "x", "text/plain"), 405, "GET, HEAD", path);
  }
  expect(c.Delete("/explore/nope.html"), 404, "", "DELETE an unknown page");
  expect(c.Delete("/explore/api/nope"), 404, "", "DELETE an unknown endpoint");
  expect(c.Get("/explore/nope.html"), 404, "", "GET an unknown page");
  const auto info = c.Get("/explore/api/info");  // still serving
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, 200);
}

// The method is checked before any body is read: a bodiless POST/PUT without Content-Length gets
// 405 at once (not 408 after the 10 s read timeout); POST kv without a length gets 411
// length_required (the servers' framing policy, src/http/framing.h);
// OPTIONS and TRACE get 405 with Allow. "At once": within half the read timeout.
TEST_F(ExploreHttp, BodilessRequestsAreAnsweredAtOnce) {
  struct Case { const char* request; const char* status; const char* code; const char* allow; };
  for (const Case& k : {Case{"POST /explore/api/info", "405", "method_not_allowed", "GET, HEAD"},
                        Case{"PUT /explore/api/kv", "405", "method_not_allowed", "POST"},
                        Case{"POST /explore/api/kv", "411", "length_required", nullptr},
                        Case{"OPTIONS /explore/api/info", "405", "method_not_allowed", "GET, HEAD"},
                        Case{"TRACE /explore/api/kv", "405", "method_not_allowed", "POST"},
                        Case{"OPTIONS /explore/index.html", "405", "method_not_allowed", "GET, HEAD"}}) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string reply = raw_exchange(port_, std::string(k.request) + " HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << k.request;
    EXPECT_EQ(reply.rfind(std::string("HTTP/1.1 ") + k.status + " ", 0), 0u) << k.request << ": " << reply;
    EXPECT_EQ(error_code(reply), k.code) << reply;
    if (k.allow) {
      EXPECT_NE(reply.find(std::string("Allow: ") + k.allow + "\r\n"), std::string::npos) << reply;
    }
  }
}

// A sentence whose URI is over the HTTP library's limit: 414 as an error object with a message.
TEST_F(ExploreHttp, AnOverlongUriIsADocumentedErrorObject) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "%E6%98%A5%E7%9C%A0%E4%B8%8D%E8%A7%89%E6%99%93";  // 春眠不觉晓
  const std::string reply = raw_exchange(port_, "GET /explore/api/lesson/attention-map?text=" + text +
                                         " HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
  EXPECT_EQ(reply.rfind("HTTP/1.1 414 ", 0), 0u) << reply.substr(0, 300);
  EXPECT_EQ(error_code(reply), "uri_too_long") << reply;
  EXPECT_NE(reply.find("at most 64 tokens"), std::string::npos) << reply;
}

}  // namespace
}  // namespace llm0
