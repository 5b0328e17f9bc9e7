// Real tiny trainings through the explorer's training API (configs/llm0-tiny.json on a 440-poem
// corpus, one thread, f32): a run started by POST /explore/api/train runs to its end, its history
// holds every record and its events stream (read over a socket while the run trains) delivers each
// of them and then `end`; the returned command, run from a terminal into another directory, writes a
// bit-identical checkpoint; stop leaves a resumable checkpoint and resume finishes the schedule;
// one training at a time; the server's end (its destructor, or a SIGKILL of the process through
// PR_SET_PDEATHSIG) stops its run with a checkpoint.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>

#include "child_process.h"
#include "cli_runner.h"
#include "core/shipped_file.h"
#include "explore/train_command.h"
#include "explore_train_fixture.h"
#include "server_process.h"
#include "train/run_lock.h"

namespace llm0 {
namespace {

using nlohmann::json;
using testing_fixtures::ExploreTrainTest;
using testing_fixtures::JsonReply;
namespace fs = std::filesystem;

// The events of a server-sent event stream: (event name or "message", data as JSON); comments
// (": keep-alive") skipped.
std::vector<std::pair<std::string, json>> parse_events(const std::string& text) {
  std::vector<std::pair<std::string, json>> events;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find("\n\n", at);
    if (end == std::string::npos) end = text.size();
    std::string name = "message", data;
    bool any = false;
    for (size_t line = at; line < end;) {
      size_t nl = text.find('\n', line);
      if (nl == std::string::npos || nl > end) nl = end;
      const std::string l = text.substr(line, nl - line);
      if (l.rfind("event: ", 0) == 0) name = l.substr(7), any = true;
      if (l.rfind("data: ", 0) == 0) data += l.substr(6), any = true;
      line = nl + 1;
    }
    if (any) events.emplace_back(name, json::parse(data));
    at = end + 2;
  }
  return events;
}

// The done records of a history.
std::vector<json> done_records(const json& records) {
  std::vector<json> d;
  for (const json& r : records)
    if (r.value("event", "") == "done") d.push_back(r);
  return d;
}

// The steps of the step records, in order.
std::vector<int> steps_of(const json& records) {
  std::vector<int> s;
  for (const json& r : records)
    if (r.contains("loss")) s.push_back(r["step"]);
  return s;
}

std::vector<int> one_to(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i + 1;
  return v;
}

TEST_F(ExploreTrainTest, ARunStartedFromThePageRunsToItsEndAndItsStreamDeliversEveryRecord) {
  const JsonReply started = start_tiny("t", 20, {{"prompt", "白日依山尽"}});
  ASSERT_EQ(started.status, 200) << started.body.dump();
  EXPECT_EQ(started.body["run"], "t");
  const std::string command = started.body["command"];
  EXPECT_EQ(command.rfind("llm0 train --config ", 0), 0u) << command;
  for (const std::string& part : std::vector<std::string>{" --max-steps 20 ", " --threads 1 ", " --out " + runs_ + "/t ",
                                 " --sample-prompt 床前明月光 --sample-prompt 春眠不觉晓 --sample-prompt 白日依山尽 "})
    EXPECT_NE(command.find(part), std::string::npos) << part;
  // The stream, opened while the run trains, on its own connection; the server answers others meanwhile.
  std::string stream;
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120);
    c.Get("/explore/api/train/t/events", [&](const char* data, size_t n) { return stream.append(data, n), true; });
  });
  const JsonReply overview = get("/explore/api/train");
  EXPECT_EQ(overview.status, 200);
  reader.join();
  api_.children().wait_idle();
  const JsonReply h = get("/explore/api/train/t");
  ASSERT_EQ(h.status, 200);
  const json& records = h.body["records"];
  EXPECT_EQ(h.body["running"], false);
  EXPECT_EQ(h.body["exit_status"], 0) << h.body["log_tail"];
  EXPECT_EQ(h.body["command"], command);
  EXPECT_EQ(h.body["config"], "llm0-tiny");
  EXPECT_EQ(h.body["checkpoint"], true);
  EXPECT_EQ(h.body["done"], true);
  EXPECT_EQ(steps_of(records), one_to(20));
  ASSERT_EQ(done_records(records).size(), 1u);
  EXPECT_EQ(done_records(records)[0]["stopped_by"], "");
  EXPECT_NE(h.body["log_tail"].get<std::string>().find("done: 20/20 steps"), std::string::npos);
  bool sampled = false;  // the learner's own prompt is continued at the validation
  for (const json& r : records)
    if (r.contains("samples"))
      for (const json& s : r["samples"]) sampled |= s["prompt"] == "白日依山尽";
  EXPECT_TRUE(sampled);
  // Every record, in order, then end.
  const auto events = parse_events(stream);
  ASSERT_FALSE(events.empty()) << stream;
  json streamed = json::array();
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i].first, "message");
    streamed.push_back(events[i].second);
  }
  EXPECT_EQ(streamed, records);
  EXPECT_EQ(events.back().first, "end");
  EXPECT_EQ(events.back().second, json({{"running", false}, {"exit_status", 0}}));
  // From line K on: the records after the first K.
  httplib::Client c("127.0.0.1", port_);
  const httplib::Result tail = c.Get("/explore/api/train/t/events?from=5");
  ASSERT_TRUE(tail);
  const auto later = parse_events(tail->body);
  ASSERT_EQ(later.size(), records.size() - 5 + 1);
  EXPECT_EQ(later[0].second, records[5]);
  // The overview lists it, finished.
  const json run = get("/explore/api/train").body["runs"][0];
  EXPECT_EQ(run["name"], "t");
  EXPECT_EQ(run["steps"], 20);
  EXPECT_EQ(run["done"], true);
  EXPECT_EQ(run["config"], "llm0-tiny");
}

TEST_F(ExploreTrainTest, TheReturnedCommandRunFromATerminalWritesABitIdenticalCheckpoint) {
  const JsonReply started = start_tiny("page", 20, {{"dropout", 0.1}, {"seed", 7}});
  ASSERT_EQ(started.status, 200) << started.body.dump();
  api_.children().wait_idle();
  ASSERT_EQ(get("/explore/api/train/page").body["exit_status"], 0);
  // The same words, --out changed: run by the llm0 program from this test's (the server's) directory.
  std::vector<std::string> argv = explore::split_command(started.body["command"]);
  ASSERT_EQ(argv[0], "llm0");
  argv.erase(argv.begin());
  const auto out = std::find(argv.begin(), argv.end(), "--out");
  ASSERT_NE(out, argv.end());
  ASSERT_EQ(out[1], runs_ + "/page");
  out[1] = runs_ + "/cli";
  const testing_fixtures::CmdOut r = testing_fixtures::run_cli(explore::command_text(argv), runs_ + "/cli.err");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* f : {"model.safetensors", "optimizer.safetensors", "trainer_state.json", "tokenizer.json"}) {
    SCOPED_TRACE(f);
    const std::string page = testing_fixtures::read_file(runs_ + "/page/checkpoint/" + f);
    ASSERT_FALSE(page.empty());
    EXPECT_TRUE(page == testing_fixtures::read_file(runs_ + "/cli/checkpoint/" + f));
  }
}

TEST_F(ExploreTrainTest, StopLeavesAResumableCheckpointAndResumeFinishesTheSchedule) {
  ASSERT_EQ(start_tiny("long", 400).status, 200);
  ASSERT_TRUE(wait_for_step("long")) << get("/explore/api/train/long").body["log_tail"];
  // A stream opened while it trains follows it live, and the requests below are served meanwhile.
  std::string stream;
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120);
    c.Get("/explore/api/train/long/events", [&](const char* data, size_t n) { return stream.append(data, n), true; });
  });
  // One training at a time: nothing else starts, nothing is written.
  const auto before = testing_fixtures::tree(runs_ + "/corpus");
  const JsonReply second = start_tiny("other", 5);
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(second.code(), "training_running");
  EXPECT_EQ(second.body["error"]["running"], "long");
  EXPECT_FALSE(fs::exists(runs_ + "/other"));
  EXPECT_EQ(post("/explore/api/train/corpus", R"({"source": "fortunes-zh"})").code(), "training_running");
  EXPECT_EQ(post("/explore/api/train/long/resume", "{}").code(), "training_running");
  EXPECT_EQ(testing_fixtures::tree(runs_ + "/corpus"), before);
  EXPECT_EQ(get("/explore/api/train").body["running"], "long");

  const JsonReply stop = post("/explore/api/train/long/stop", "");
  ASSERT_EQ(stop.status, 200) << stop.body.dump();
  EXPECT_EQ(stop.body, json({{"run", "long"}, {"stopping", true}}));
  api_.children().wait_idle();
  JsonReply h = get("/explore/api/train/long");
  EXPECT_EQ(h.body["exit_status"], 0) << h.body["log_tail"];
  EXPECT_EQ(h.body["checkpoint"], true);
  EXPECT_EQ(h.body["done"], false);
  const int stopped_at = h.body["checkpoint_step"];
  EXPECT_GT(stopped_at, 0);
  EXPECT_LT(stopped_at, 400);
  ASSERT_EQ(done_records(h.body["records"]).size(), 1u);
  EXPECT_EQ(done_records(h.body["records"])[0]["stopped_by"], "a stop request");
  EXPECT_EQ(post("/explore/api/train/long/stop", "").code(), "not_running");
  reader.join();  // the stream ended by itself once the run stopped: every record, then end
  const auto events = parse_events(stream);
  ASSERT_GE(events.size(), 2u) << stream;
  json streamed = json::array();
  for (size_t i = 0; i + 1 < events.size(); ++i) streamed.push_back(events[i].second);
  EXPECT_EQ(streamed, h.body["records"]);
  EXPECT_EQ(events[events.size() - 2].second.value("event", ""), "done");
  EXPECT_EQ(events.back().first, "end");
  EXPECT_EQ(events.back().second, json({{"running", false}, {"exit_status", 0}}));

  const JsonReply resumed = post("/explore/api/train/long/resume", "{}");
  ASSERT_EQ(resumed.status, 200) << resumed.body.dump();
  const std::string command = resumed.body["command"];
  EXPECT_NE(command.find(" --out " + runs_ + "/long --resume " + runs_ + "/long "), std::string::npos) << command;
  EXPECT_NE(command.find(" --threads 1 "), std::string::npos) << command;  // the checkpoint's
  EXPECT_NE(command.find(" --sample-prompt 床前明月光 "), std::string::npos) << command;
  api_.children().wait_idle();
  h = get("/explore/api/train/long");
  EXPECT_EQ(h.body["exit_status"], 0) << h.body["log_tail"];
  EXPECT_EQ(h.body["done"], true);
  EXPECT_EQ(steps_of(h.body["records"]), one_to(400));  // each step once: the resume dropped the rest
  EXPECT_EQ(h.body["commands"].size(), 2u);
  EXPECT_EQ(h.body["command"], command);
  EXPECT_EQ(post("/explore/api/train/long/resume", "{}").code(), "nothing_to_resume");

  // The finished run becomes the lessons' model.
  const JsonReply loaded = post("/explore/api/model", R"({"run": "long"})");
  ASSERT_EQ(loaded.status, 200) << loaded.body.dump();
  EXPECT_EQ(loaded.body["model"]["name"], runs_ + "/long");
  EXPECT_EQ(get("/explore/api/info").body["model"]["hidden_size"], 64);
  EXPECT_EQ(get("/explore/api/lesson/generate-steps?text=%E5%BA%8A%E5%89%8D&tokens=2").status, 200);
}

// A stop sent at once, before the program has installed its stop handler, waits for it (the
// explorer starts llm0 train with SIGINT and SIGTERM blocked) and is a stop request, not a kill.
TEST_F(ExploreTrainTest, AStopSentRightAfterTheStartIsAStopRequest) {
  ASSERT_EQ(start_tiny("early", 100000).status, 200);
  const JsonReply stop = post("/explore/api/train/early/stop", "");
  ASSERT_EQ(stop.status, 200) << stop.body.dump();
  api_.children().wait_idle();
  const JsonReply h = get("/explore/api/train/early");
  EXPECT_EQ(h.body["exit_status"], 0) << h.body["log_tail"];
  EXPECT_EQ(h.body["checkpoint"], true);
  ASSERT_EQ(done_records(h.body["records"]).size(), 1u) << h.body["log_tail"];
  EXPECT_EQ(done_records(h.body["records"])[0]["stopped_by"], "a stop request");
}

TEST_F(ExploreTrainTest, AStopReachesARunStartedFromTheTerminal) {
  const std::string own = runs_ + "/own-corpus";  // not the corpus a request naming none gets
  fs::copy(runs_ + "/corpus", own);
  testing_fixtures::ChildProcess terminal(
      {"train", "--config", shipped_file("configs/llm0-tiny.json"), "--data", own, "--out", runs_ + "/term",
       "--max-steps", "100000", "--seq-len", "64", "--threads", "1", "--log-every", "1", "--precision", "f32",
       "--sample-prompt", "你好"},
      runs_ + "/term.log");
  while (!run_in_progress(runs_ + "/term") && terminal.running()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(run_in_progress(runs_ + "/term")) << terminal.log();
  EXPECT_EQ(get("/explore/api/train").body["runs"][0]["running"], true);
  EXPECT_EQ(post("/explore/api/train/term/resume", "{}").code(), "training_running");
  const JsonReply stop = post("/explore/api/train/term/stop", "");
  ASSERT_EQ(stop.status, 200) << stop.body.dump();
  EXPECT_EQ(stop.body["pid"], terminal.pid());
  EXPECT_EQ(terminal.wait_exit(), 0) << terminal.log();
  EXPECT_TRUE(fs::exists(runs_ + "/term/checkpoint/trainer_state.json"));
  // Resumed from the page, it keeps its own corpus and sample prompt (from its start record: a
  // terminal run has no command.txt), not the defaults of a fresh start.
  const JsonReply resumed = post("/explore/api/train/term/resume", "{}");
  ASSERT_EQ(resumed.status, 200) << resumed.body.dump();
  const std::vector<std::string> argv = explore::split_command(resumed.body["command"]);
  EXPECT_EQ(explore::option_values(argv, "--data"), std::vector<std::string>{own});
  EXPECT_EQ(explore::option_values(argv, "--sample-prompt"), std::vector<std::string>{"你好"});
  EXPECT_EQ(explore::option_values(argv, "--sample-tokens"), std::vector<std::string>{"32"});
  wait_for_step("term");
  post("/explore/api/train/term/stop", "");
  api_.children().wait_idle();
}

TEST_F(ExploreTrainTest, TheCorpusButtonPreparesTheCorpusAsMakeRunDoes) {
  fs::remove_all(runs_ + "/corpus");
  EXPECT_EQ(start_tiny("early", 5).code(), "corpus_missing");
  const JsonReply p = post("/explore/api/train/corpus", R"({"source": "fortunes-zh"})");
  ASSERT_EQ(p.status, 200) << p.body.dump();
  EXPECT_EQ(p.body["command"], "scripts/prepare_corpus.sh fortunes-zh " + runs_ + "/corpus");
  api_.children().wait_idle();
  const json corpus = get("/explore/api/train").body["corpora"][0];
  EXPECT_EQ(corpus["exit_status"], 0) << corpus.dump();
  EXPECT_EQ(corpus["ready"], true);
  // `llm0 data --source fortunes-zh` run by hand writes the same split.
  const testing_fixtures::CmdOut r = testing_fixtures::run_cli(
      "data --source fortunes-zh --output " + runs_ + "/by-hand", runs_ + "/data.err");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* f : {"train.jsonl", "validation.jsonl"})
    EXPECT_TRUE(testing_fixtures::read_file(runs_ + "/corpus/" + f) == testing_fixtures::read_file(runs_ + "/by-hand/" + f)) << f;
  auto lines = [&](const char* f) {  // one document per line
    const std::string t = testing_fixtures::read_file(runs_ + "/by-hand/" + f);
    return std::count(t.begin(), t.end(), '\n');
  };
  EXPECT_EQ(corpus["documents"], lines("train.jsonl") + lines("validation.jsonl"));
}

// The connection limits bound a request's arrival, not a response: a stream outlives the request
// deadline (1 s here) for as long as its run trains.
TEST(ExploreTrainStream, AStreamOutlivesTheRequestDeadline) {
  const std::string runs = test::fresh_temp_path("explore_train_stream", "runs");
  testing_fixtures::write_tiny_corpus(runs + "/corpus");
  explore::ExploreApi api(testing_fixtures::train_options(runs));
  serve::ConnectionLimits limits = explore::explore_limits();
  limits.request_timeout_s = 1, limits.read_timeout_s = 1, limits.keep_alive_timeout_s = 1;
  explore::ExploreServer server(api, limits);
  const int port = server.bind_listener("127.0.0.1", 0);
  std::thread serving([&] { server.listen_after_bind(); });
  explore::ApiRequest start;
  start.method = "POST", start.path = "/explore/api/train";
  start.body = R"({"config": "llm0-tiny", "max_steps": 100000, "threads": 1, "precision": "f32", "out": "s"})";
  ASSERT_EQ(api.handle(start).status, 200);
  std::mutex mu;
  std::string stream;
  std::atomic<bool> ended{false};
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120);
    c.Get("/explore/api/train/s/events", [&](const char* data, size_t n) {
      std::lock_guard<std::mutex> lk(mu);
      return stream.append(data, n), true;
    });
    ended = true;
  });
  // Until the stream has carried a step record trained 2 s after the run's start (twice the deadline).
  for (bool late = false; !late && !ended;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard<std::mutex> lk(mu);
    for (const auto& [name, r] : parse_events(stream.substr(0, stream.rfind("\n\n") == std::string::npos ? 0 : stream.rfind("\n\n") + 2)))
      late |= r.value("elapsed_s", 0.0) >= 2.0;
  }
  EXPECT_FALSE(ended) << "the stream ended before the run";
  explore::ApiRequest stop;
  stop.method = "POST", stop.path = "/explore/api/train/s/stop";
  EXPECT_EQ(api.handle(stop).status, 200);
  reader.join();
  server.stop();
  serving.join();
  const auto events = parse_events(stream);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().first, "end");
}

// Streams of a run in progress hold their connections: past kEventStreams one more is refused with
// 503 too_many_streams while other requests are still served; the count falls as streams end.
TEST_F(ExploreTrainTest, EventStreamsAreCappedSoOtherRequestsKeepTheirConnections) {
  fs::create_directories(runs_ + "/held");
  std::ofstream(runs_ + "/held/metrics.jsonl") << R"({"step": 1, "loss": 6.2})" << "\n";
  std::optional<RunLock> training(std::in_place, runs_ + "/held");  // a trainer holds the run
  std::atomic<int> opened{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < explore::ExploreLimits::kEventStreams; ++i)
    readers.emplace_back([&] {
      httplib::Client c("127.0.0.1", port_);
      c.set_read_timeout(60);
      bool counted = false;
      c.Get("/explore/api/train/held/events", [&](const char*, size_t) {
        if (!counted) counted = true, ++opened;
        return true;
      });
    });
  while (opened < explore::ExploreLimits::kEventStreams) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(api_.event_streams().load(), explore::ExploreLimits::kEventStreams);
  const JsonReply more = get("/explore/api/train/held/events");
  EXPECT_EQ(more.status, 503);
  EXPECT_EQ(more.code(), "too_many_streams");
  EXPECT_EQ(get("/explore/api/train").status, 200);  // everything else is still served
  training.reset();  // the run ends: every stream sends end and closes
  for (std::thread& t : readers) t.join();
  for (int i = 0; i < 100 && api_.event_streams().load() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(api_.event_streams().load(), 0);
}

// The ExploreApi's end (the server's, after SIGINT / SIGTERM) stops its training, which checkpoints.
TEST(ExploreTrainEnd, TheServersEndStopsItsRunWithACheckpoint) {
  const std::string runs = test::fresh_temp_path("explore_train_end", "runs");
  testing_fixtures::write_tiny_corpus(runs + "/corpus");
  auto api = std::make_unique<explore::ExploreApi>(testing_fixtures::train_options(runs));
  explore::ApiRequest r;
  r.method = "POST", r.path = "/explore/api/train";
  r.body = R"({"config": "llm0-tiny", "max_steps": 100000, "threads": 1, "out": "end"})";
  ASSERT_EQ(api->handle(r).status, 200);
  ASSERT_TRUE(testing_fixtures::wait_for_step(runs + "/end", [&] { return api->children().running().has_value(); }));
  api.reset();  // returns once the trainer has ended
  EXPECT_FALSE(run_in_progress(runs + "/end"));
  EXPECT_TRUE(fs::exists(runs + "/end/checkpoint/trainer_state.json"));
  const auto done = done_records(explore::read_records(runs + "/end"));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["stopped_by"], "a stop request");
}

// A SIGKILL of the server process: the trainer gets SIGTERM (PR_SET_PDEATHSIG) and checkpoints.
TEST(ExploreTrainEnd, AKilledServersRunStillCheckpoints) {
  const std::string runs = test::fresh_temp_path("explore_train_kill", "runs");
  testing_fixtures::write_tiny_corpus(runs + "/corpus");
  testing_fixtures::ServerProcess server({"explore", "--runs", runs, "--threads", "1"}, runs + "/server.log");
  ASSERT_GT(server.port(), 0) << server.log();
  httplib::Client c("127.0.0.1", server.port());
  const httplib::Result r = c.Post("/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 100000, "threads": 1,
                                   "out": "killed"})", "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string dir = runs + "/killed";
  ASSERT_TRUE(testing_fixtures::wait_for_step(dir, [&] {  // a trainer that fails says "error"
    return testing_fixtures::read_file(dir + "/train.log").find("error") == std::string::npos && server.running();
  })) << testing_fixtures::read_file(dir + "/train.log");
  kill(server.pid(), SIGKILL);
  server.wait_exit();
  while (run_in_progress(dir)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(fs::exists(dir + "/checkpoint/trainer_state.json")) << testing_fixtures::read_file(dir + "/train.log");
  const auto done = done_records(explore::read_records(dir));
  ASSERT_EQ(done.size(), 1u) << testing_fixtures::read_file(dir + "/train.log");
  EXPECT_EQ(done[0]["stopped_by"], "a stop request");
}

}  // namespace
}  // namespace llm0
