// `llm0 explore --lang en` without --model (tools/cli/cmd_explore.cpp): the English model
// stories260K (tests/data) is converted on first use into $XDG_CACHE_HOME/llm0/stories260K and
// served — the real program started on a free port with a temporary HOME and XDG_CACHE_HOME, its
// info endpoint asked over the socket, and its version equal to `llm0 --version`.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_fixtures::read_file;

// The server's process, stopped with SIGTERM at scope exit.
struct Server {
  pid_t pid = -1;
  ~Server() {
    if (pid > 0) kill(pid, SIGTERM), waitpid(pid, nullptr, 0);
  }
};

TEST(ExploreEnglish, WithoutAModelConvertsStories260KIntoTheCacheAndServesIt) {
  const fs::path tmp = fs::temp_directory_path() / ("llm0_explore_en_" + std::to_string(getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "home");
  const fs::path cache = tmp / "cache", log = tmp / "server.log";
  Server s;
  s.pid = fork();
  ASSERT_GE(s.pid, 0);
  if (s.pid == 0) {  // the child: the program with its own HOME and cache, output to the log
    setenv("HOME", (tmp / "home").c_str(), 1);
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1), dup2(fd, 2);
    execl(LLM0_CLI, LLM0_CLI, "explore", "--lang", "en", "--port", "0", (char*)nullptr);
    _exit(127);
  }
  // Converting stories260K and loading it take well under a second; 60 s allows a busy machine.
  // "listening on http://127.0.0.1:PORT/explore/ (model NAME, ..." (string search: GCC 12's
  // <regex> trips -Wmaybe-uninitialized in the sanitizer build).
  std::string port, name, text;
  const auto parse = [&](const std::string& t) {
    const std::string head = "listening on http://127.0.0.1:", mid = "/explore/ (model ";
    const size_t a = t.find(head);
    if (a == std::string::npos) return false;
    const size_t b = t.find(mid, a);
    const size_t c = b == std::string::npos ? b : t.find(',', b);
    if (c == std::string::npos) return false;
    port = t.substr(a + head.size(), b - a - head.size());
    name = t.substr(b + mid.size(), c - b - mid.size());
    return !port.empty() && port.find_first_not_of("0123456789") == std::string::npos;
  };
  bool found = false;
  for (int i = 0; i < 600 && !found; ++i) {
    text = read_file(log);
    if ((found = parse(text))) break;
    ASSERT_EQ(waitpid(s.pid, nullptr, WNOHANG), 0) << "the server exited:\n" << text;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(found) << "no 'listening on' line:\n" << text;
  const fs::path model = cache / "llm0" / "stories260K";
  EXPECT_EQ(name, model.string());
  EXPECT_NE(text.find("converted stories260K (English) into " + model.string()), std::string::npos)
      << text;
  EXPECT_TRUE(fs::is_regular_file(model / "config.json"));
  EXPECT_FALSE(fs::exists(tmp / "home" / ".cache")) << "XDG_CACHE_HOME wins over HOME";

  httplib::Client c("127.0.0.1", std::stoi(port));
  c.set_read_timeout(30, 0);
  const httplib::Result r = c.Get("/explore/api/info");
  ASSERT_TRUE(r) << "no answer";
  ASSERT_EQ(r->status, 200) << r->body;
  const json info = json::parse(r->body);
  EXPECT_EQ(info["lang"], "en");
  ASSERT_TRUE(info["model"].is_object()) << r->body;
  EXPECT_EQ(info["model"]["name"], model.string());
  EXPECT_EQ(info["model"]["vocab_size"], 512);  // stories260K's tok512
  // info.version is `llm0 --version` of the same binary: the build, CPU, kernels and BLAS lines
  // equal; the last line is the thread count of the process that prints it (--version prints
  // before OMP_NUM_THREADS / --threads are applied, the server after).
  const testing_fixtures::CmdOut v = testing_fixtures::run_cli("--version", tmp / "v.err");
  ASSERT_EQ(v.rc, 0) << v.err;
  auto without_threads = [](const std::string& t) { return t.substr(0, t.rfind("threads: ")); };
  const std::string version = info["version"];
  EXPECT_EQ(without_threads(version), without_threads(v.out));
  EXPECT_NE(version.find("llm0 (built with"), std::string::npos) << version;
  EXPECT_NE(version.find("\nthreads: "), std::string::npos) << version;
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace llm0
