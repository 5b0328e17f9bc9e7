// ConnectionServer (src/serve/connection_server.h) contains a failure to its own connection: an
// exception thrown where cpp-httplib has no guard — a streamed response's content provider, after
// the handler returned — used to leave the connection thread and end the process (std::terminate),
// every other request and stream with it. Now that connection ends and the server answers the next
// request, on a connection opened before the failure and on a new one.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "serve/connection_server.h"
#include "server_process.h"

namespace llm0 {
namespace {

using testing_fixtures::RawConnection;
using testing_fixtures::status_of;

TEST(ConnectionServer, AnExceptionFromAContentProviderEndsItsConnectionOnly) {
  serve::ConnectionLimits limits;
  limits.command = "";
  serve::ConnectionServer server(limits, {[] { return std::string(); }, [] {}});
  server.Get("/boom", [](const httplib::Request&, httplib::Response& r) {
    r.set_chunked_content_provider("text/plain", [](size_t, httplib::DataSink&) -> bool {
      throw std::runtime_error("a content provider failed");
    });
  });
  server.Get("/ok", [](const httplib::Request&, httplib::Response& r) { r.set_content("ok", "text/plain"); });
  const int port = server.bind_listener("127.0.0.1", 0);
  std::thread t([&] { server.listen_after_bind(); });
  RawConnection before(port);  // open while the other one fails
  {
    RawConnection c(port);
    ASSERT_TRUE(c.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n"));
    const std::string reply = c.receive(5000);
    EXPECT_EQ(reply.find("0\r\n\r\n"), std::string::npos) << "a failed stream must not look complete: " << reply;
  }
  ASSERT_TRUE(before.send("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(status_of(before.receive(5000)), 200);
  RawConnection after(port);
  ASSERT_TRUE(after.send("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(status_of(after.receive(5000)), 200);
  server.stop();
  t.join();
}

}  // namespace
}  // namespace llm0
