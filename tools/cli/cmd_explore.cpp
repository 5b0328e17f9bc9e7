// `llm0 explore [--model RUN] [--host 127.0.0.1] [--port 8090] [--lang zh|en] [--runs runs] [--export DIR]`:
// the attention chapter's lessons as pages in the browser, every number computed by this engine
// (src/explore/, docs/explore-api.md). Prints "llm0 explore: listening on http://HOST:PORT/explore/"
// on stderr once it accepts connections; SIGINT / SIGTERM stop it. `--export DIR` writes a static
// copy instead; `--info` prints GET /explore/api/info. With --lang en and no --model, the English
// model stories260K (tests/data/stories260K) is converted on first use into the user's cache
// folder and loaded.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "common.h"
#include "stop_signals.h"
#include "core/check.h"
#include "core/shipped_file.h"
#include "explore/explore_assets.h"
#include "explore/explore_export.h"
#include "explore/explore_server.h"
#include "io/llama2c.h"

namespace llm0::cli {

namespace {

namespace fs = std::filesystem;

struct ExploreArgs {
  explore::ExploreOptions api;
  std::string host = "127.0.0.1";
  int port = 8090;
  explore::ExportOptions out;
  std::string export_dir;
  bool info = false;
};

// $XDG_CACHE_HOME/llm0/stories260K (else ~/.cache/llm0/stories260K), converted from the shipped
// llama2.c files when missing. "" (with a note) when they are not shipped or cannot be converted.
std::string english_model() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if ((xdg == nullptr || *xdg == 0) && (home == nullptr || *home == 0)) return "";
  const fs::path dir = (xdg != nullptr && *xdg != 0 ? fs::path(xdg) : fs::path(home) / ".cache") /
                       "llm0" / "stories260K";
  if (fs::is_regular_file(dir / "config.json")) return dir.string();
  try {
    fs::create_directories(dir.parent_path());
    convert_llama2c(shipped_file("tests/data/stories260K/stories260K.bin"),
                    shipped_file("tests/data/stories260K/tok512.bin"), dir.string());
    std::fprintf(stderr, "llm0 explore: converted stories260K (English) into %s\n", dir.c_str());
    return dir.string();
  } catch (const Error& e) {
    std::fprintf(stderr, "llm0 explore: no English model (%s); the model panels say how to load one\n", e.what());
    return "";
  }
}

void run_explore(ExploreArgs& a) {
  if (a.api.model_dir.empty() && a.api.lang == "en" && !a.info)
    a.api.model_dir = english_model();
  explore::ExploreApi api(a.api);
  if (a.info) return (void)std::printf("%s\n", api.info().dump(2).c_str());
  if (!a.export_dir.empty()) {
    const auto refused = explore::export_explorer(api, a.export_dir, a.out, [](const std::string& key) {
      std::fprintf(stderr, "baking %s\n", key.c_str());
    });
    for (const std::string& r : refused) std::fprintf(stderr, "not baked: %s\n", r.c_str());
    std::printf("static explorer written to %s (open %s/index.html)\n", a.export_dir.c_str(), a.export_dir.c_str());
    return;
  }
  StopSignals signals;
  explore::ExploreServer server(api);
  const int port = server.bind_listener(a.host, a.port);
  std::fprintf(stderr, "llm0 explore: listening on http://%s/explore/ (model %s, language %s, KaTeX %s)\n",
               host_port(a.host, port).c_str(), a.api.model_dir.empty() ? "none" : a.api.model_dir.c_str(),
               a.api.lang.c_str(), explore::katex_embedded() ? "embedded" : "not installed");
  std::fflush(stderr);
  signals.serve([&] { server.listen_after_bind(); }, [&](int sig) {
    std::fprintf(stderr, "llm0 explore: stopping (signal %d)\n", sig);
    server.stop();
  });
}

}  // namespace

void register_explore(CLI::App& app) {
  auto a = std::make_shared<ExploreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "The attention chapter's lessons in the browser, computed live by the engine");
  cmd->add_option("--model", a->api.model_dir, "Checkpoint directory or training run for the model panels");
  cmd->add_option("--host", a->host, "Address to listen on (loopback by default)")->capture_default_str();
  cmd->add_option("--port", a->port, "TCP port (0 = any free port, printed at start)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--runs", a->api.runs_dir, "Runs directory: the training page starts runs and prepares corpora only under it")
      ->capture_default_str();
  cmd->add_option("--lang", a->api.lang, "Language the pages open in")
      ->check(CLI::IsMember({"zh", "en"}))->capture_default_str();
  cmd->add_option("--export", a->export_dir, "Write a static copy (pages + baked-data.js) to this folder instead of serving");
  cmd->add_option("--export-up-to", a->out.up_to_max, "Longest kv-cache growth length baked by --export")
      ->check(CLI::Range(8, explore::ExploreLimits::kKvCacheUpTo))->capture_default_str();
  cmd->add_flag("--info", a->info, "Print GET /explore/api/info (JSON) and exit");
  add_threads_option(cmd);
  cmd->callback([a] { run_explore(*a); });
}

}  // namespace llm0::cli
