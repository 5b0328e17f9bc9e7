// A large API answer (a training run's history: megabytes) goes out uncompressed even to a client
// that accepts brotli, as browsers do (explore_http.cpp: Debian's cpp-httplib 0.11 compresses with
// brotli at its slowest quality, seconds per megabyte, and the training page waited for it); small
// answers keep their compression.
#include <filesystem>
#include <fstream>

#include "explore_train_fixture.h"

using llm0::testing_fixtures::ExploreTrainTest;

TEST_F(ExploreTrainTest, ALargeAnswerIsSentPlainAndASmallOneStillCompressed) {
  // A run's metrics.jsonl of 6,000 step records (~0.5 MB of JSON), as a terminal run leaves it.
  const std::string dir = runs_ + "/big";
  std::filesystem::create_directories(dir);
  {
    std::ofstream m(dir + "/metrics.jsonl");
    for (int s = 1; s <= 6000; ++s)
      m << nlohmann::json{{"step", s}, {"loss", 6.0 - s * 1e-4}, {"lr", 1e-3}, {"tokens_per_s", 1e5}}.dump() << "\n";
  }
  httplib::Client c("127.0.0.1", port_);
  c.set_decompress(false);  // the bytes as sent
  const httplib::Headers browser = {{"Accept-Encoding", "gzip, deflate, br"}};
  const httplib::Result big = c.Get("/explore/api/train/big", browser);
  ASSERT_TRUE(big);
  ASSERT_EQ(big->status, 200);
  EXPECT_FALSE(big->has_header("Content-Encoding")) << big->get_header_value("Content-Encoding");
  const nlohmann::json j = nlohmann::json::parse(big->body);
  ASSERT_EQ(j["records"].size(), 6000u);
  EXPECT_EQ(j["records"][5999]["step"], 6000);
  const httplib::Result small = c.Get("/explore/api/train", browser);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->get_header_value("Content-Encoding"), "br");
}
