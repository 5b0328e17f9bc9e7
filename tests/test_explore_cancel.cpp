// Abandoned heavy work is cancelled (src/core/cancel.h, ExploreApi::HeavyTurn): the kv-cache
// lesson's growth table at L = 4,096 (seconds of work: its no-cache track does ~L³/6 q·k scores)
// is computed by a request whose client then hangs up, or while the server stops. Each check is an
// invariant, not a time: a growth table computed to its end is stored in the server's memo, so an
// empty memo after the request has left the API means it stopped before its end; a stop that
// waited for the work would have answered 200 with the table, not 503 `cancelled`. Past
// ExploreLimits::kHeavyRequests heavy requests held at once, one more gets 503 `busy` at once.
// The SIGTERM check runs the real programs (`llm0 explore`, `llm0 serve`'s /explore/ mount).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/explore_server.h"
#include "explore_fixtures.h"
#include "explore_server_fixture.h"
#include "server_process.h"

namespace llm0 {
namespace {

using explore::ExploreApi;
using explore::ExploreLimits;
using nlohmann::json;
using testing_fixtures::RawConnection;

// The growth table at the longest length the API takes; P varies, so each is a new memo key.
std::string slow(int prompt_len) {
  return "/explore/api/lesson/kv-cache?prompt-len=" + std::to_string(prompt_len) + "&generate=3&up-to=4096";
}

// Waits until `done()` (a state the server reaches by itself); false after 10 minutes (a hang).
template <class F>
bool eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The status and error code of GET `path` on a connection of its own (0 when no answer came).
std::pair<int, std::string> get(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(600, 0);
  const auto r = c.Get(path.c_str());
  if (!r) return {0, ""};
  const json j = json::parse(r->body, nullptr, false);
  return {r->status, j.is_object() && j.contains("error") ? j["error"]["code"].get<std::string>() : ""};
}

class ExploreCancel : public testing_fixtures::ExploreServerTest {
 protected:
  // Sends GET `path` on a new raw connection, kept open until closed (or destroyed).
  std::unique_ptr<RawConnection> start(const std::string& path) {
    auto c = std::make_unique<RawConnection>(port_);
    EXPECT_TRUE(c->send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    return c;
  }
};

TEST_F(ExploreCancel, AClientThatHangsUpStopsItsComputation) {
  auto c = start(slow(2));
  ASSERT_TRUE(eventually([&] { return api_.heavy_requests() == 1; })) << "the request never took its turn";
  c->close();
  ASSERT_TRUE(eventually([&] { return api_.in_flight() == 0; }));
  EXPECT_EQ(api_.growth_memo().size(), 0u) << "the growth table was computed to its end for nobody";
  EXPECT_EQ(api_.heavy_requests(), 0);
  // The server serves on: a small table, asked by a client that waits, is computed and stored.
  EXPECT_EQ(get(port_, "/explore/api/lesson/kv-cache?prompt-len=2&generate=3&up-to=64").first, 200);
  EXPECT_EQ(api_.growth_memo().size(), 1u);
}

TEST_F(ExploreCancel, HeavyRequestsPastTheBoundGet503BusyAndAbandonedOnesLeaveTheQueue) {
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < ExploreLimits::kHeavyRequests; ++i) held.push_back(start(slow(2 + i)));
  ASSERT_TRUE(eventually([&] { return api_.heavy_requests() == ExploreLimits::kHeavyRequests; }));
  const auto [status, code] = get(port_, slow(2 + ExploreLimits::kHeavyRequests));
  EXPECT_EQ(status, 503);
  EXPECT_EQ(code, "busy");
  // A light request is not queued behind them.
  EXPECT_EQ(get(port_, "/explore/api/info").first, 200);
  for (auto& c : held) c->close();  // the one computing and the ones waiting their turn
  ASSERT_TRUE(eventually([&] { return api_.in_flight() == 0; }));
  EXPECT_EQ(api_.heavy_requests(), 0);
  EXPECT_EQ(api_.growth_memo().size(), 0u) << "an abandoned request computed its table";
}

TEST_F(ExploreCancel, StoppingTheServerAbandonsHeavyWorkInFlight) {
  auto reply = std::async(std::launch::async, [this] { return get(port_, slow(2)); });
  ASSERT_TRUE(eventually([&] { return api_.heavy_requests() == 1; }));
  server_.stop();  // what SIGTERM does (tools/cli/cmd_explore.cpp)
  thread_.join();  // listen returns once every connection thread has ended
  const auto [status, code] = reply.get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(code, "cancelled");
  EXPECT_EQ(api_.growth_memo().size(), 0u) << "the stop waited for the growth table";
}

// SIGTERM to the real programs with a growth table in flight: the client is answered 503
// `cancelled` (not the table: the work stopped at a step, not at its end) and the program exits 0.
// "In flight": the program has used 0.2 s of CPU since it listened (an idle server uses ~none).
TEST(ExploreCancelSigterm, BothServersStopWithHeavyWorkInFlight) {
  testing_fixtures::ExploreModelDir dir;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"explore"},
                                              std::vector<std::string>{"serve", "--model", dir.model()}}) {
    testing_fixtures::ServerProcess s(args, dir.dir() / (args[0] + ".log"));
    ASSERT_GT(s.port(), 0) << s.log();
    const long idle = s.cpu_ticks(), tick = sysconf(_SC_CLK_TCK);
    auto reply = std::async(std::launch::async, [&] { return get(s.port(), slow(2)); });
    ASSERT_TRUE(eventually([&] { return s.cpu_ticks() >= idle + tick / 5; })) << args[0];
    ASSERT_EQ(kill(s.pid(), SIGTERM), 0);
    const auto [status, code] = reply.get();
    EXPECT_EQ(status, 503) << args[0] << ":\n" << s.log();
    EXPECT_EQ(code, "cancelled") << args[0];
    EXPECT_EQ(s.wait_exit(), 0) << args[0] << ":\n" << s.log();
  }
}

}  // namespace
}  // namespace llm0
