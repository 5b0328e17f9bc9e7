// A test fixture for the explorer's training endpoints: an `llm0 explore` server (ExploreServer on a
// free port of 127.0.0.1) whose runs directory is a fresh temporary folder holding a small prepared
// corpus (RUNS/corpus: 400 fortunes-zh poems to train on, 40 to validate), its trainings run by the
// built llm0 program (LLM0_CLI); JSON requests over a real socket with cpp-httplib's client.
#pragma once
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/explore_server.h"
#include "explore/train_runs.h"
#include "test_util.h"
#include "train/corpus.h"

namespace llm0::testing_fixtures {

/// An answer: the status and the JSON body (null when the body is not JSON).
struct JsonReply {
  int status = 0;
  nlohmann::json body;
  /// The error object's code ("" when none).
  std::string code() const {
    return body.is_object() && body.contains("error") ? body["error"].value("code", "") : "";
  }
};

/// Every path under `dir` with its size (directories as -1), sorted: equal before and after a
/// request that must write nothing.
inline std::vector<std::pair<std::string, int64_t>> tree(const std::string& dir) {
  std::vector<std::pair<std::string, int64_t>> t;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    t.emplace_back(it->path().string(), it->is_directory() ? -1 : (int64_t)it->file_size());
  std::sort(t.begin(), t.end());
  return t;
}

/// A prepared corpus in `dir`: train.jsonl and validation.jsonl as `llm0 data` writes them
/// ({"text": ...} per line), 400 fortunes-zh poems and 40.
inline void write_tiny_corpus(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::vector<std::string> docs = fortunes_zh_documents();
  std::ofstream train(dir + "/train.jsonl"), validation(dir + "/validation.jsonl");
  for (size_t i = 0; i < 440 && i < docs.size(); ++i)
    (i < 400 ? train : validation) << nlohmann::json{{"text", docs[i]}}.dump() << "\n";
}

/// Options of an explorer whose runs go to `runs`, trained by the built llm0 program.
inline explore::ExploreOptions train_options(const std::string& runs) {
  explore::ExploreOptions o;
  o.runs_dir = runs, o.program = LLM0_CLI;
  return o;
}

/// Waits until RUN/metrics.jsonl holds a step record (one with "loss"), or `alive()` says the
/// trainer has ended; true when the record is there.
template <class Alive>
bool wait_for_step(const std::string& run_dir, Alive alive) {
  for (;;) {
    const bool running = alive();
    for (const nlohmann::json& r : explore::read_records(run_dir))
      if (r.contains("loss")) return true;
    if (!running) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

class ExploreTrainTest : public testing::Test {
 protected:
  ExploreTrainTest() : runs_(test::fresh_temp_path("explore_train", "runs")), api_(train_options(runs_)), server_(api_) {
    write_tiny_corpus(runs_ + "/corpus");
    port_ = server_.bind_listener("127.0.0.1", 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ExploreTrainTest() override {
    server_.stop();
    thread_.join();
  }

  JsonReply reply(const httplib::Result& r) const {
    if (!r) return {};
    return {r->status, nlohmann::json::parse(r->body, nullptr, false)};
  }
  JsonReply get(const std::string& path) {
    httplib::Client c("127.0.0.1", port_);
    return reply(c.Get(path.c_str()));
  }
  JsonReply post(const std::string& path, const char* body) { return post(path, std::string(body)); }
  JsonReply post(const std::string& path, const std::string& body) {
    httplib::Client c("127.0.0.1", port_);
    return reply(c.Post(path.c_str(), body, "application/json"));
  }
  JsonReply post(const std::string& path, const nlohmann::json& body) { return post(path, body.dump()); }

  /// POST /explore/api/train of a tiny run: llm0-tiny, f32, one thread, `steps` steps, named `out`.
  JsonReply start_tiny(const std::string& out, int steps, const nlohmann::json& more = nlohmann::json::object()) {
    nlohmann::json body = {{"config", "llm0-tiny"}, {"max_steps", steps}, {"threads", 1},
                           {"precision", "f32"}, {"out", out}};
    body.update(more);
    return post("/explore/api/train", body);
  }

  /// Waits until the run's first step record, or the end of the server's training (false then).
  bool wait_for_step(const std::string& run) {
    return testing_fixtures::wait_for_step(runs_ + "/" + run, [this] { return api_.children().running().has_value(); });
  }

  std::string runs_;
  explore::ExploreApi api_;
  explore::ExploreServer server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace llm0::testing_fixtures
