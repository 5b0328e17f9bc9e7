// The explorer's training endpoints refusing bad input (src/explore/explore_train.cpp, over a real
// socket): each bad request gets its 4xx and error code, writes nothing under the runs directory,
// and the server goes on serving (a GET after it answers); the pieces under them: run names, the
// command's shell text, JSON bodies, the method table.
#include <gtest/gtest.h>

#include <filesystem>

#include "explore/explore_export.h"
#include "explore/json_body.h"
#include "explore/explore_routes.h"
#include "explore/train_command.h"
#include "explore/train_corpora.h"
#include "explore/train_events.h"
#include "explore/train_runs.h"
#include "explore_train_fixture.h"
#include "train/run_lock.h"

namespace llm0 {
namespace {

using nlohmann::json;
using testing_fixtures::ExploreTrainTest;
using testing_fixtures::JsonReply;
using testing_fixtures::tree;

struct BadRequest {
  const char* what;
  const char* method;
  const char* path;
  const char* body;
  int status;
  const char* code;
};

// Each request refused before anything is written (the corpus exists; no run does but "t1",
// which holds a metrics.jsonl only: a finished terminal run with no checkpoint).
const BadRequest kBad[] = {
    {"unknown preset", "POST", "/explore/api/train", R"({"config": "llm0-huge", "max_steps": 5})", 400, "unknown_preset"},
    {"negative minutes", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "minutes": -1})", 400, "bad_param"},
    {"zero minutes", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "minutes": 0})", 400, "bad_param"},
    {"minutes and max_steps", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "minutes": 1, "max_steps": 5})", 400, "bad_param"},
    {"neither minutes nor max_steps", "POST", "/explore/api/train", R"({"config": "llm0-tiny"})", 400, "bad_param"},
    {"zero max_steps", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 0})", 400, "bad_param"},
    {"fractional max_steps", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 2.5})", 400, "bad_param"},
    {"negative seed", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "seed": -1})", 400, "bad_param"},
    {"dropout 1", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "dropout": 1})", 400, "bad_param"},
    {"zero threads", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "threads": 0})", 400, "bad_param"},
    {"threads as text", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "threads": "2"})", 400, "bad_param"},
    {"unknown precision", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "precision": "f16"})", 400, "bad_param"},
    {"unknown corpus", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "corpus": "wiki"})", 400, "bad_param"},
    {"prompt with a newline", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "prompt": "a\nb"})", 400, "bad_param"},
    // llm0-tiny's context is 64 tokens: 64 bytes of prompt could be 64 tokens (no room to continue);
    // 65 bytes of attention text could be 65 tokens (the map takes at most 64)
    {"prompt as long as the context", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "prompt": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})", 400, "bad_param"},
    {"attention text over the map's tokens", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "attention_text": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})", 400, "bad_param"},
    {"unknown key", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "lr": 0.1})", 400, "bad_param"},
    {"malformed JSON", "POST", "/explore/api/train", R"({"config": "llm0-tiny", )", 400, "bad_json"},
    {"a body that is not an object", "POST", "/explore/api/train", R"(["llm0-tiny"])", 400, "not_object"},
    {"a path as out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": "a/b"})", 400, "invalid_run_name"},
    {"'..' as out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": ".."})", 400, "invalid_run_name"},
    {"an absolute path as out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": "/tmp/x"})", 400, "invalid_run_name"},
    {"an empty out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": ""})", 400, "invalid_run_name"},
    {"a corpus name as out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": "corpus"})", 400, "invalid_run_name"},
    {"an existing run as out", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "out": "t1"})", 409, "run_exists"},
    {"a corpus not prepared", "POST", "/explore/api/train", R"({"config": "llm0-tiny", "max_steps": 5, "corpus": "chinese-poetry"})", 409, "corpus_missing"},
    {"stop of an unknown run", "POST", "/explore/api/train/nope/stop", "", 404, "unknown_run"},
    {"stop of a run not training", "POST", "/explore/api/train/t1/stop", "", 409, "not_running"},
    {"resume of an unknown run", "POST", "/explore/api/train/nope/resume", "{}", 404, "unknown_run"},
    {"resume without a checkpoint", "POST", "/explore/api/train/t1/resume", "{}", 409, "nothing_to_resume"},
    {"resume with a bad key", "POST", "/explore/api/train/t1/resume", R"({"steps": 3})", 400, "bad_param"},
    {"history of an unknown run", "GET", "/explore/api/train/nope", "", 404, "unknown_run"},
    {"history of a path", "GET", "/explore/api/train/..", "", 400, "invalid_run_name"},
    {"events of an unknown run", "GET", "/explore/api/train/nope/events", "", 404, "unknown_run"},
    {"events from a bad line", "GET", "/explore/api/train/t1/events?from=-1", "", 400, "bad_param"},
    {"a query key on a history", "GET", "/explore/api/train/t1?x=1", "", 400, "unknown_param"},
    {"an unknown action", "POST", "/explore/api/train/t1/delete", "", 404, "not_found"},
    {"GET of a POST endpoint", "GET", "/explore/api/train/t1/stop", "", 405, "method_not_allowed"},
    {"PUT of the runs", "PUT", "/explore/api/train", "{}", 405, "method_not_allowed"},
    {"an unknown corpus source", "POST", "/explore/api/train/corpus", R"({"source": "wiki"})", 400, "bad_param"},
    {"model of an unknown run", "POST", "/explore/api/model", R"({"run": "nope"})", 404, "unknown_run"},
    {"model of a run without a checkpoint", "POST", "/explore/api/model", R"({"run": "t1"})", 409, "no_checkpoint"},
    {"model without a run", "POST", "/explore/api/model", "{}", 400, "bad_param"},
};

TEST_F(ExploreTrainTest, EveryBadRequestIsRefusedWritingNothingAndTheServerGoesOn) {
  std::filesystem::create_directories(runs_ + "/t1");
  std::ofstream(runs_ + "/t1/metrics.jsonl") << R"({"step": 1, "loss": 6.2})" << "\n";
  const auto before = tree(runs_);
  httplib::Client c("127.0.0.1", port_);
  for (const BadRequest& b : kBad) {
    SCOPED_TRACE(b.what);
    const httplib::Result r = std::string(b.method) == "GET"  ? c.Get(b.path)
                              : std::string(b.method) == "PUT" ? c.Put(b.path, b.body, "application/json")
                                                               : c.Post(b.path, b.body, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, b.status);
    const json j = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
    EXPECT_EQ(j["error"]["code"], b.code) << r->body;
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
    EXPECT_EQ(tree(runs_), before);
    EXPECT_EQ(get("/explore/api/train").status, 200);  // still serving
  }
  EXPECT_FALSE(api_.children().running());  // nothing was started
}

TEST_F(ExploreTrainTest, TheUnknownPresetErrorListsThePresetsLlm0SmallFirst) {
  const JsonReply r = post("/explore/api/train", R"({"config": "gpt-5", "max_steps": 5})");
  ASSERT_EQ(r.code(), "unknown_preset");
  const json presets = r.body["error"]["presets"];
  ASSERT_GE(presets.size(), 2u);
  EXPECT_EQ(presets[0], "llm0-small");
  EXPECT_NE(std::find(presets.begin(), presets.end(), "llm0-tiny"), presets.end());
}

TEST_F(ExploreTrainTest, TheOverviewListsPresetsCorporaDefaultsAndRuns) {
  std::filesystem::create_directories(runs_ + "/old");  // a terminal run: records, no command.txt
  std::ofstream(runs_ + "/old/metrics.jsonl") << R"({"step": 0, "planned_total_steps": 40})" << "\n"
                                              << R"({"step": 1, "loss": 6.2})" << "\n"
                                              << "not json\n"
                                              << R"({"step": "1", "loss": 9})" << "\n"  // no step:
                                              << R"({"step": null})" << "\n"           // skipped too
                                              << R"({"step": 1.5})" << "\n"
                                              << R"({"step": 2, "loss": 6.0})" << "\n"
                                              << R"({"step": 2, "val_loss": 6.1, "val_perplexity": 445.9})" << "\n";
  std::filesystem::create_directories(runs_ + "/not-a-run");
  const JsonReply r = get("/explore/api/train");
  ASSERT_EQ(r.status, 200);
  const json& o = r.body;
  EXPECT_EQ(o["runs_dir"], runs_);
  EXPECT_TRUE(o["running"].is_null());
  EXPECT_TRUE(o["preparing"].is_null());
  EXPECT_EQ(o["presets"][0]["name"], "llm0-small");
  EXPECT_EQ(o["presets"][0]["parameters"], 6253824.0);  // README: llm0-small has 6.25M parameters
  EXPECT_EQ(o["corpora"][0]["source"], "fortunes-zh");
  EXPECT_EQ(o["corpora"][0]["dir"], runs_ + "/corpus");
  EXPECT_EQ(o["corpora"][0]["ready"], true);
  EXPECT_EQ(o["corpora"][0]["documents"], 440);
  EXPECT_EQ(o["corpora"][1]["ready"], false);
  EXPECT_EQ(o["defaults"]["config"], "llm0-small");
  EXPECT_EQ(o["defaults"]["prompts"], json({"床前明月光", "春眠不觉晓"}));
  EXPECT_EQ(o["defaults"]["corpus"], "fortunes-zh");  // chinese-poetry is not prepared here
  ASSERT_EQ(o["runs"].size(), 1u);  // "not-a-run" holds nothing of a run; corpus is not a run
  const json& run = o["runs"][0];
  EXPECT_EQ(run["name"], "old");
  EXPECT_EQ(run["running"], false);
  EXPECT_EQ(run["steps"], 2);
  EXPECT_EQ(run["total_steps"], 40);
  EXPECT_EQ(run["val_loss"], 6.1);
  EXPECT_EQ(run["done"], false);
  EXPECT_TRUE(run["config"].is_null());
  const JsonReply h = get("/explore/api/train/old");  // the history skips the line that is not JSON
  ASSERT_EQ(h.status, 200);
  EXPECT_EQ(h.body["records"].size(), 4u);
  EXPECT_EQ(h.body["records"][2]["loss"], 6.0);
  EXPECT_TRUE(h.body["command"].is_null());
  EXPECT_TRUE(h.body["exit_status"].is_null());
}

// make run's corpus (chinese-poetry) is the default once it is prepared; until then fortunes-zh.
TEST_F(ExploreTrainTest, TheDefaultCorpusIsMakeRunsOnceItIsPrepared) {
  EXPECT_EQ(explore::default_corpus(runs_), "fortunes-zh");
  std::filesystem::create_directories(runs_ + "/corpus-poetry");
  std::ofstream(runs_ + "/corpus-poetry/train.jsonl") << R"({"text": "静夜思"})" << "\n";
  EXPECT_EQ(explore::default_corpus(runs_), "fortunes-zh");  // half written: not ready
  std::ofstream(runs_ + "/corpus-poetry/validation.jsonl") << R"({"text": "春晓"})" << "\n";
  EXPECT_EQ(explore::default_corpus(runs_), "chinese-poetry");
  EXPECT_EQ(get("/explore/api/train").body["defaults"]["corpus"], "chinese-poetry");
}

// The static export bakes the training page's replay: the runs and each run not training now.
TEST(ExploreTrainExport, TheExportBakesEveryRunNotTraining) {
  const std::string runs = test::fresh_temp_path("explore_train_export", "runs");
  for (const char* name : {"done", "busy"}) {
    std::filesystem::create_directories(runs + "/" + name);
    std::ofstream(runs + "/" + name + "/metrics.jsonl") << R"({"step": 1, "loss": 6.2})" << "\n";
  }
  const RunLock training(runs + "/busy");  // a trainer holds busy's lock
  explore::ExploreApi api(testing_fixtures::train_options(runs));
  std::vector<std::string> paths;
  for (const explore::ApiRequest& r : explore::baked_requests(api, {})) {
    if (r.path.rfind("/explore/api/train", 0) != 0) continue;
    paths.push_back(r.path);
    const explore::ApiResponse a = api.handle(r);
    EXPECT_EQ(a.status, 200) << r.path << " " << a.body.dump();
    if (r.path == "/explore/api/train/done") {
      EXPECT_EQ(a.body["records"][0]["loss"], 6.2);
    }
  }
  EXPECT_EQ(paths, std::vector<std::string>({"/explore/api/train", "/explore/api/train/done"}));
}

TEST(ExploreTrainNames, ANameIsNeverAPath) {
  for (const std::string& ok : std::vector<std::string>{"small", "a", "run-2", "v1.5_b", "0", "corpu", std::string(64, 'x').c_str()})
    EXPECT_TRUE(explore::valid_run_name(ok)) << ok;
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "../a", "a/b", "/a", ".hidden", "-x", "_x", "a b", "a\\b",
                                "corpus", "corpus-poetry", "名字", std::string(65, 'x')})
    EXPECT_FALSE(explore::valid_run_name(bad)) << bad;
}

TEST(ExploreTrainCommand, TheShellTextSplitsBackIntoTheSameWords) {
  const std::vector<std::string> argv = {"llm0", "train", "--sample-prompt", "床前明月光", "--attention-text",
                                         "it's a \"test\" $HOME `x` ;|&", "--sample-prompt=-dash", "a\\b", "tab\there"};
  const std::string text = explore::command_text(argv);
  EXPECT_EQ(explore::split_command(text), argv);
  EXPECT_NE(text.find(" 床前明月光 "), std::string::npos);  // UTF-8 text needs no quotes
  EXPECT_NE(text.find("'it'\\''s a \"test\" $HOME `x` ;|&'"), std::string::npos);
  EXPECT_THROW(explore::split_command("llm0 'open"), Error);
}

TEST(ExploreTrainCommand, TheArgvFollowsTheSpec) {
  explore::TrainCommand c;
  c.config = "configs/llm0-tiny.json", c.config_context = 64, c.data = "runs/corpus", c.out = "runs/t";
  c.max_steps = 20, c.seed = 7, c.dropout = 0.1, c.threads = 2, c.prompts = {"床前明月光", "-own"};
  c.attention_text = "床前明月光，疑是地上霜。";
  EXPECT_EQ(explore::command_text(explore::train_argv(c)),
            "llm0 train --config configs/llm0-tiny.json --data runs/corpus --out runs/t --max-steps 20 "
            "--seed 7 --dropout 0.1 --threads 2 --log-every 1 --seq-len 64 --sample-prompt 床前明月光 "
            "--sample-prompt=-own --attention-text 床前明月光，疑是地上霜。");
  c.max_steps = 0, c.minutes = 2.5, c.config_context = 256, c.prompts = {}, c.attention_text = "", c.precision = "f32";
  EXPECT_EQ(explore::command_text(explore::train_argv(c)),
            "llm0 train --config configs/llm0-tiny.json --data runs/corpus --out runs/t --time-limit-minutes 2.5 "
            "--seed 7 --dropout 0.1 --threads 2 --log-every 1 --precision f32");
  // A resume repeats the first session's sample options (no checkpoint keeps them), not its schedule.
  const std::vector<std::string> first = {"llm0", "train", "--max-steps", "9", "--sample-prompt", "春",
                                          "--sample-prompt=-x", "--attention-text", "句"};
  EXPECT_EQ(explore::command_text(explore::resume_argv("runs/corpus", "runs/t", 3, first)),
            "llm0 train --data runs/corpus --out runs/t --resume runs/t --threads 3 --log-every 1 "
            "--sample-prompt 春 --sample-prompt=-x --attention-text 句");
}

// The events stream's reader: whole lines only, `from` skips records, a replaced file starts over.
TEST(ExploreTrainEvents, TheTailSendsWholeLinesAndStartsOverWhenTheFileIsReplaced) {
  const std::string dir = test::fresh_temp_path("explore_train_events", "run");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/metrics.jsonl";
  explore::RecordTail tail(path, 1);
  EXPECT_TRUE(tail.poll().records.empty());  // no file yet
  std::ofstream(path) << R"({"step": 1, "loss": 6})" "\n" "cut short\n" R"({"step": 2, "loss": 5})" "\n" R"({"step": 3,)";
  explore::RecordTail::Update u = tail.poll();
  EXPECT_FALSE(u.reset);
  EXPECT_EQ(u.records, std::vector<json>({json{{"step", 2}, {"loss", 5}}}));  // record 1 skipped (from = 1)
  std::ofstream(path, std::ios::app) << R"( "loss": 4})" "\n";
  u = tail.poll();
  EXPECT_EQ(u.records, std::vector<json>({json{{"step", 3}, {"loss", 4}}}));  // once its newline came
  EXPECT_TRUE(tail.poll().records.empty());
  // A resume rewrites the file (a new one renamed over it): everything again, from the first.
  std::ofstream(path + ".tmp") << R"({"step": 1, "loss": 6})" "\n" R"({"step": 2, "loss": 5})" "\n";
  std::filesystem::rename(path + ".tmp", path);
  u = tail.poll();
  EXPECT_TRUE(u.reset);
  EXPECT_EQ(u.records.size(), 2u);
  EXPECT_EQ(explore::sse_event(json{{"step", 1}}), "data: {\"step\":1}\n\n");
  EXPECT_EQ(explore::sse_event(json{{"running", false}}, "end"), "event: end\ndata: {\"running\":false}\n\n");
}

TEST(ExploreTrainApi, TheMethodTableKnowsTheTrainingEndpoints) {
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train"), "GET, HEAD, POST");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/small"), "GET, HEAD");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/small/events"), "GET, HEAD");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/small/stop"), "POST");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/small/resume"), "POST");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/corpus"), "POST");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/model"), "POST");
  EXPECT_EQ(explore::api_allowed_methods("/explore/api/train/small/delete"), "");
  EXPECT_TRUE(explore::method_allowed("POST", "GET, HEAD, POST"));
  EXPECT_TRUE(explore::method_allowed("HEAD", "GET, HEAD, POST"));
  EXPECT_FALSE(explore::method_allowed("GET", "POST"));
  EXPECT_FALSE(explore::method_allowed("PUT", "GET, HEAD, POST"));
}

}  // namespace
}  // namespace llm0
