// The explorer over a real socket (src/explore/explore_server.h) and its static parts: the
// embedded asset table serves index.html as text/html; malformed HTTP requests (garbage, a body
// over 1 MiB, unknown paths, a form-encoded body) get error objects and the server keeps serving;
// `--export` writes the pages and a baked-data.js whose entries equal the endpoints' answers.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "explore/explore_assets.h"
#include "explore/explore_export.h"
#include "explore/explore_server.h"
#include "explore_fixtures.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using explore::ExploreApi;
using nlohmann::json;

TEST(ExploreAssets, IndexHtmlIsEmbeddedWithItsMimeType) {
  const explore::EmbeddedAsset* a = explore::find_asset("index.html");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(explore::find_asset(""), a) << "the folder's index.html";
  // The bytes are the file's, as the build embedded it.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(a->data), a->size),
            testing_fixtures::read_file(std::string(LLM0_SOURCE_DIR) + "/web/explore/index.html"));
  EXPECT_EQ(explore::mime_type("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(explore::mime_type("js/api.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(explore::mime_type("vendor/katex/fonts/KaTeX_Main-Regular.woff2"), "font/woff2");
  EXPECT_EQ(explore::find_asset("no-such-file.html"), nullptr);
  const auto all = explore::embedded_assets();
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(std::string(all[i - 1].name), all[i].name) << "sorted";
}

TEST(ExploreServer, ErrorsAreErrorObjectsAndTheServerKeepsServing) {
  ExploreApi api({"", "zh"});
  explore::ExploreServer server(api);
  const int port = server.bind_listener("127.0.0.1", 0);
  std::thread t([&] { server.listen_after_bind(); });
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(30, 0);
  auto expect_error = [](const httplib::Result& r, int status) {
    ASSERT_TRUE(r) << "no answer";
    EXPECT_EQ(r->status, status) << r->body;
    const json j = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  };
  expect_error(c.Get("/explore/api/lesson/kv-cache?up-to=99999"), 400);
  expect_error(c.Get("/explore/nothing.html"), 404);
  expect_error(c.Get("/elsewhere"), 404);
  expect_error(c.Post("/explore/api/kv", "{\"hidden_size\":", "application/json"), 400);
  // A form-encoded body's fields are not query parameters.
  expect_error(c.Post("/explore/api/kv", "context=5", "application/x-www-form-urlencoded"), 400);
  expect_error(c.Post("/explore/api/kv", std::string((2u << 20), '{'), "application/json"), 413);
  {  // garbage instead of HTTP
    httplib::Client raw("127.0.0.1", port);
    raw.Get("/\x01\x02 HTTP/9");
  }
  const auto page = c.Get("/explore/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  const auto info = c.Get("/explore/api/info");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, 200);
  EXPECT_EQ(json::parse(info->body), api.info());
  const auto ledger = c.Get("/explore/api/kv/reference/deepseek-v2");
  ASSERT_TRUE(ledger);
  EXPECT_EQ(json::parse(ledger->body)["kv_bytes_per_token"], 69120) << "DeepSeek-V2: 60 × (512 + 64) × 2 B";
  server.stop();
  t.join();
}

TEST(ExploreExport, BakedDataEqualsTheEndpoints) {
  testing_fixtures::ExploreModelDir dir;
  ExploreApi api({dir.model(), "en"});
  const fs::path out = dir.dir() / "static";
  explore::ExportOptions opt;
  opt.up_to_max = 16;
  const auto refused = explore::export_explorer(api, out.string(), opt);
  EXPECT_TRUE(refused.empty()) << refused.front();
  for (const explore::EmbeddedAsset& a : explore::embedded_assets())
    if (std::string(a.name) != "baked-data.js") {
      EXPECT_EQ(fs::file_size(out / a.name), a.size) << a.name;
    }
  std::string js = testing_fixtures::read_file(out / "baked-data.js");
  const std::string head = "window.LLM0_BAKED = ";
  const size_t at = js.find(head);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(js.substr(js.size() - 2), ";\n");
  const json baked = json::parse(js.substr(at + head.size(), js.size() - 2 - at - head.size()));
  const auto requests = explore::baked_requests(api, opt);
  EXPECT_EQ(baked.size(), requests.size());
  for (const explore::ApiRequest& r : requests) {
    const std::string key = explore::canonical_key(r.path, r.query);
    ASSERT_TRUE(baked.contains(key)) << key;
    if (key == "/explore/api/info") {
      EXPECT_EQ(baked[key], api.info(true));
      EXPECT_TRUE(baked[key]["static"].get<bool>());
    } else {
      EXPECT_EQ(baked[key], api.handle(r).body) << key;
    }
  }
  EXPECT_TRUE(baked.contains("/explore/api/lesson/kv-cache?generate=3&prompt-len=2&up-to=16"));
  EXPECT_TRUE(baked.contains("/explore/api/lesson/attention-map?text=Once%20upon%20a%20time%2C%20there%20was%20a%20little%20girl"));
}

}  // namespace
}  // namespace llm0
