// The explorer serves requests concurrently (src/explore/explore_api.h): a slow request — the
// kv-cache lesson's growth table at L = 2,048, whose no-cache track does ~L³/6 q·k scores — does
// not hold a fast one (info) sent on another connection while it runs: the fast one comes back
// while the slow one is still inside the API. An ordering invariant, no timing threshold: with
// one lock around every request the fast one could only start after the slow one had left.
// Then the growth table, computed once per server, is the same on the second request.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "explore/explore_server.h"
#include "explore_server_fixture.h"

namespace llm0 {
namespace {

using explore::ExploreApi;
using nlohmann::json;

constexpr const char* kSlow = "/explore/api/lesson/kv-cache?prompt-len=2&generate=3&up-to=2048";

class ExploreConcurrency : public testing_fixtures::ExploreServerTest {
 protected:
  // GET `path` on a connection of its own; the body of a 200, else a failure naming the status.
  json get(const std::string& path) {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(600, 0);
    const auto r = c.Get(path.c_str());
    if (!r) return json{{"failed", "no answer"}};
    if (r->status != 200) return json{{"failed", r->status}, {"body", r->body}};
    return json::parse(r->body);
  }
};

TEST_F(ExploreConcurrency, AFastRequestReturnsWhileASlowOneRuns) {
  auto slow = std::async(std::launch::async, [this] { return get(kSlow); });
  // Wait until the slow request is inside ExploreApi::handle (its reading of the request is done).
  while (api_.in_flight() == 0) {
    ASSERT_EQ(slow.wait_for(std::chrono::milliseconds(1)), std::future_status::timeout)
        << "the slow request ended before it was seen in flight: " << slow.get().dump();
  }
  const json info = get("/explore/api/info");
  const bool slow_still_running = api_.in_flight() >= 1 &&
                                  slow.wait_for(std::chrono::seconds(0)) == std::future_status::timeout;
  EXPECT_TRUE(info.contains("version")) << info.dump();
  EXPECT_TRUE(slow_still_running) << "info waited for the kv-cache lesson to finish";
  const json table = slow.get();
  ASSERT_TRUE(table.contains("growth")) << table.dump();
  EXPECT_EQ(table["growth"].back()["length"], 2048);
  EXPECT_EQ(api_.growth_memo().size(), 1u);
  EXPECT_EQ(api_.growth_memo().hits(), 0u);
  EXPECT_EQ(get(kSlow), table) << "the memoized growth table answers the same";
  EXPECT_EQ(api_.growth_memo().hits(), 1u) << "the second request found the first one's table";
}

}  // namespace
}  // namespace llm0
