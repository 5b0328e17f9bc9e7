// The static export of the explorer (explore_export.h).
#include "explore/explore_export.h"

#include <filesystem>
#include <fstream>

#include "explore/explore_assets.h"
#include "explore/explore_handlers.h"
#include "explore/explore_http.h"
#include "explore/train_runs.h"
#include "lesson/lesson_json.h"

namespace llm0::explore {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kApi = "/explore/api/";

ApiRequest get(const std::string& path, std::vector<std::pair<std::string, std::string>> q = {}) {
  ApiRequest r;
  r.path = kApi + path;
  r.query = std::move(q);
  return r;
}

void write_file(const fs::path& p, const char* data, size_t n) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::binary);
  out.write(data, (std::streamsize)n);
  LLM0_CHECK(out.good(), "cannot write {}", p.string());
}

}  // namespace

std::vector<ApiRequest> baked_requests(ExploreApi& api, const ExportOptions& opt) {
  std::vector<ApiRequest> r = {get("info"), get("lesson/attention")};
  for (const std::string& t : lesson::attention_world("", "").tokens)
    r.push_back(get("lesson/attention", {{"asker", t}}));
  for (int P = 1; P <= 4; ++P)
    for (int G = 1; G <= 6; ++G)
      r.push_back(get("lesson/kv-cache", {{"generate", std::to_string(G)},
                                          {"prompt-len", std::to_string(P)}, {"up-to", "0"}}));
  std::vector<int> lengths = {100, 1000};
  for (int L = 8; L <= ExploreLimits::kKvCacheUpTo; L *= 2) lengths.push_back(L);
  for (int L : lengths)
    if (L <= opt.up_to_max)
      r.push_back(get("lesson/kv-cache", {{"generate", "3"}, {"prompt-len", "2"},
                                          {"up-to", std::to_string(L)}}));
  for (const std::string& name : reference_config_names()) {
    r.push_back(get("lesson/shapes", {{"config", name}}));
    r.push_back(get("kv/reference/" + name));
    r.push_back(get("kv/reference/" + name, {{"context", "262144"}}));
  }
  for (const char* as : {"mha", "mqa"})
    r.push_back(get("kv/reference/course-anchor-hybrid", {{"as", as}, {"context", "262144"}}));
  if (api.model() != nullptr) {
    const std::string text = api.default_text();
    r.push_back(get("lesson/kv-cache", {{"generate", "3"}, {"model", "loaded"},
                                        {"prompt-len", "2"}, {"up-to", "0"}}));
    r.push_back(get("lesson/attention-map", {{"text", text}}));
    r.push_back(get("lesson/generate-steps", {{"temperature", "0"}, {"text", text}, {"tokens", "32"}}));
  }
  // The training page's replay: the runs directory and every run in it not training now.
  r.push_back(get("train"));
  for (const std::string& name : list_runs(api.options().runs_dir))
    if (!run_running(api, name)) r.push_back(get("train/" + name));
  return r;
}

std::string baked_data_js(const json& entries) {
  return "// Written by `llm0 explore --export`: the engine's answers, keyed by canonical request "
         "(docs/explore-api.md).\nwindow.LLM0_BAKED = " + dump_api_json(entries) + ";\n";
}

std::vector<std::string> export_explorer(ExploreApi& api, const std::string& dir,
                                         const ExportOptions& opt,
                                         const std::function<void(const std::string&)>& progress) {
  for (const EmbeddedAsset& a : embedded_assets())
    write_file(fs::path(dir) / a.name, reinterpret_cast<const char*>(a.data), a.size);
  json entries = json::object();
  std::vector<std::string> refused;
  for (const ApiRequest& r : baked_requests(api, opt)) {
    const std::string key = canonical_key(r.path, r.query);
    if (progress) progress(key);
    if (r.path == std::string(kApi) + "info") {
      entries[key] = api.info(true);
      continue;
    }
    const ApiResponse a = api.handle(r);
    if (a.status == 200) entries[key] = a.body;
    else refused.push_back(key + ": " + a.body["error"]["message"].get<std::string>());
  }
  const std::string js = baked_data_js(entries);
  write_file(fs::path(dir) / "baked-data.js", js.data(), js.size());
  return refused;
}

}  // namespace llm0::explore
