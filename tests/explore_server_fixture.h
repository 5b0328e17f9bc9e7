// A test fixture: an `llm0 explore` server (no model, Chinese pages) on a free port of 127.0.0.1,
// listening on its own thread from SetUp to TearDown.
#pragma once
#include <gtest/gtest.h>

#include <thread>

#include "explore/explore_server.h"

namespace llm0::testing_fixtures {

class ExploreServerTest : public testing::Test {
 protected:
  void SetUp() override {
    port_ = server_.bind_listener("127.0.0.1", 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  explore::ExploreApi api_{{"", "zh"}};
  explore::ExploreServer server_{api_};
  int port_ = 0;
  std::thread thread_;
};

}  // namespace llm0::testing_fixtures
