// The training endpoints (explore_handlers.h, docs/explore-api.md "Training"): start, resume and
// stop a `llm0 train` child, prepare a corpus, read a run, load its checkpoint as the lessons' model.
// Every refusal comes before anything is written under the runs directory.
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/json_parse.h"
#include "core/threads.h"
#include "explore/explore_handlers.h"
#include "explore/json_body.h"
#include "explore/train_command.h"
#include "explore/train_corpora.h"
#include "explore/train_presets.h"
#include "explore/train_runs.h"
#include "infer/attention_map.h"
#include "train/run_lock.h"

namespace llm0::explore {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::string> kPrompts = {"床前明月光", "春眠不觉晓"};
constexpr const char* kAttentionText = "床前明月光，疑是地上霜。";

int threads_max() { return std::clamp((int)std::thread::hardware_concurrency(), 1, kMaxThreads); }

const std::string& runs_dir(ExploreApi& api) { return api.options().runs_dir; }

ChildJob train_job(const std::string& name) { return {"train", name}; }

// 409 when the server's child is busy: a training (training_running) or a preparation.
void check_idle(ExploreApi& api) {
  const std::optional<ChildJob> job = api.children().running();
  if (!job) return;
  if (job->kind == "train")
    throw ExploreError(409, "training_running", format("the run {} is training: this server trains one "
                       "run at a time (stop it first, or wait for it)", job->name), "", {{"running", job->name}});
  throw ExploreError(409, "corpus_preparing", format("the corpus {} is being prepared; try again when it "
                     "is ready", job->name), "", {{"preparing", job->name}});
}

// RUNS/NAME of an existing run (404 unknown_run otherwise); NAME checked first.
std::string known_run(ExploreApi& api, const std::string& name) {
  check_run_name(name, "name");
  const std::string dir = run_path(runs_dir(api), name);
  if (!is_run(dir))
    throw ExploreError(404, "unknown_run", format("there is no run {} in {} (GET /explore/api/train lists them)",
                       name, runs_dir(api)), "", {{"run", name}});
  return dir;
}

void check_corpus(ExploreApi& api, const std::string& dir, const std::string& source) {
  const std::optional<ChildJob> job = api.children().running();
  if (corpus_ready(dir) && !(job && job->kind == "corpus" && job->name == source)) return;
  throw ExploreError(409, "corpus_missing", format("the corpus {} is not prepared in {}: prepare it (POST "
                     "/explore/api/train/corpus, the page's button, or `make run`)", source, dir), "",
                     {{"source", source}, {"dir", dir}});
}

// Starts argv as the run's trainer, its log train.log; 409 when another child won the race.
void start_training(ExploreApi& api, const std::string& name, const std::string& dir,
                    const std::vector<std::string>& argv, bool resume) {
  std::ofstream(fs::path(dir) / "command.txt", resume ? std::ios::app : std::ios::trunc) << command_text(argv) << "\n";
  if (!api.children().start(train_job(name), api.program(), argv, (fs::path(dir) / "train.log").string(), resume))
    check_idle(api);
}

// A fresh run's name when the request gives none: the preset's without "llm0-", then -2, -3, ...
std::string default_run_name(ExploreApi& api, const std::string& preset) {
  const std::string base = preset.rfind("llm0-", 0) == 0 ? preset.substr(5) : preset;
  std::error_code ec;
  for (int i = 1;; ++i) {
    const std::string name = i == 1 ? base : format("{}-{}", base, i);
    if (!fs::exists(run_path(runs_dir(api), name), ec)) return name;
  }
}

std::string preset_of(const std::vector<std::string>& commands) {
  if (commands.empty()) return "";
  const std::vector<std::string> config = option_values(split_command(commands[0]), "--config");
  return config.empty() ? "" : fs::path(config.back()).stem().string();
}

json null_or(const std::string& s) { return s.empty() ? json() : json(s); }

}  // namespace

bool run_running(ExploreApi& api, const std::string& name) {
  const std::optional<ChildJob> job = api.children().running();
  return (job && *job == train_job(name)) || run_in_progress(run_path(runs_dir(api), name));
}

json train_overview(ExploreApi& api, const ApiRequest& r) {
  QueryArgs(r.query, {});
  const std::optional<ChildJob> job = api.children().running();
  json corpora = corpora_json(runs_dir(api));
  for (json& c : corpora) {  // a preparation's status and log while it runs and after
    const std::string source = c["source"], log = tail_lines(c["dir"].get<std::string>() + ".log", 20);
    if (job && job->kind == "corpus" && job->name == source) {  // being written
      c["ready"] = false;
      c.erase("documents"), c.erase("characters");
    }
    if (const std::optional<int> status = api.children().exit_status({"corpus", source})) c["exit_status"] = *status;
    if (!log.empty()) c["log_tail"] = log;
  }
  json runs = json::array();
  for (const std::string& name : list_runs(runs_dir(api))) {
    const std::string dir = run_path(runs_dir(api), name);
    const RunSummary s = summarize_run(dir, read_records(dir));
    runs.push_back({{"name", name}, {"running", run_running(api, name)}, {"steps", s.steps},
                    {"total_steps", s.total_steps}, {"done", s.done}, {"checkpoint", s.checkpoint},
                    {"val_loss", s.val_loss ? json(*s.val_loss) : json()},
                    {"config", null_or(preset_of(run_commands(dir)))}});
  }
  return {{"runs_dir", runs_dir(api)},
          {"running", job && job->kind == "train" ? json(job->name) : json()},
          {"presets", presets_json(train_presets())},
          {"corpora", corpora},
          {"preparing", job && job->kind == "corpus" ? json(job->name) : json()},
          {"threads_max", threads_max()},
          {"defaults", {{"config", "llm0-small"}, {"minutes", 10}, {"seed", 1337}, {"dropout", 0.1},
                        {"threads", threads_max()}, {"corpus", default_corpus(runs_dir(api))}, {"prompts", kPrompts},
                        {"attention_text", kAttentionText}}},
          {"runs", runs}};
}

json train_start(ExploreApi& api, const ApiRequest& r) {
  const JsonBody b(r, {"config", "minutes", "max_steps", "seed", "dropout", "threads", "out", "corpus",
                       "prompt", "attention_text", "precision"});
  const TrainPreset preset = find_preset(b.text("config", "llm0-small"));
  if (b.has("minutes") == b.has("max_steps"))
    throw bad_param(b.has("minutes") ? "max_steps" : "minutes", "give one of \"minutes\" (a time budget) "
                    "or \"max_steps\" (a step count, reproducible bit for bit)");
  TrainCommand c;
  c.config = preset.path, c.config_context = preset.context;
  c.minutes = b.number("minutes", 0, 24 * 60, 0);
  if (b.has("minutes") && !(c.minutes > 0)) throw bad_param("minutes", "\"minutes\" must be more than 0");
  c.max_steps = (int)b.integer("max_steps", 1, 10'000'000, 0);
  c.seed = (uint64_t)b.integer("seed", 0, (int64_t)1 << 53, 1337);
  c.dropout = b.number("dropout", 0, 1, 0.1);
  if (!(c.dropout < 1)) throw bad_param("dropout", "\"dropout\" must be less than 1");
  c.threads = (int)b.integer("threads", 1, kMaxThreads, threads_max());
  c.precision = b.text("precision");
  if (!c.precision.empty() && c.precision != "auto" && c.precision != "f32" && c.precision != "bf16")
    throw bad_param("precision", format("\"precision\" is auto, f32 or bf16, got \"{}\"", text_excerpt(c.precision)));
  const std::string name = b.has("out") ? b.text("out") : default_run_name(api, preset.name);
  check_run_name(name);
  const std::string source = b.text("corpus", default_corpus(runs_dir(api)));
  c.data = corpus_dir(runs_dir(api), source);
  c.prompts = kPrompts;
  // Refused here rather than by the run after its tokenizer is trained: a byte-level BPE token
  // covers at least one byte, so a text of at most N bytes is at most N tokens, whatever the
  // tokenizer learns. A prompt must leave the context room for one token; the attention map
  // takes at most kAttentionMapMaxTokens tokens within the context.
  const size_t context = (size_t)std::max(1, preset.context);
  if (const std::string own = b.text("prompt", "", std::min<size_t>(256, context - 1)); !own.empty())
    c.prompts.push_back(own);
  c.attention_text = b.text("attention_text", kAttentionText,
                            std::min<size_t>(kAttentionMapMaxTokens, context));
  c.out = run_path(runs_dir(api), name);

  std::lock_guard<std::mutex> starting(api.start_mutex());
  std::error_code ec;
  if (fs::exists(c.out, ec))
    throw ExploreError(409, "run_exists", format("{} exists already: choose another name (a run is never "
                       "overwritten from the page)", c.out), "", {{"param", "out"}, {"run", name}});
  check_idle(api);
  check_corpus(api, c.data, source);
  fs::create_directories(c.out);
  const std::vector<std::string> argv = train_argv(c);
  try {
    start_training(api, name, c.out, argv, false);
  } catch (...) {
    fs::remove_all(c.out, ec);  // nothing is left of a run that did not start
    throw;
  }
  return {{"run", name}, {"command", command_text(argv)}};
}

json train_run(ExploreApi& api, const ApiRequest& r, const std::string& name) {
  QueryArgs(r.query, {});
  const std::string dir = known_run(api, name);
  const json records = read_records(dir);
  const RunSummary s = summarize_run(dir, records);
  const std::vector<std::string> commands = run_commands(dir);
  const std::optional<int> status = api.children().exit_status(train_job(name));
  const std::string log = tail_lines((fs::path(dir) / "train.log").string(), 40);
  return {{"run", name}, {"dir", dir}, {"running", run_running(api, name)},
          {"command", commands.empty() ? json() : json(commands.back())}, {"commands", commands},
          {"config", null_or(preset_of(commands))}, {"records", records},
          {"log_tail", null_or(log)}, {"exit_status", status ? json(*status) : json()},
          {"checkpoint", s.checkpoint}, {"checkpoint_step", s.checkpoint_step}, {"done", s.done},
          {"steps", s.steps}, {"total_steps", s.total_steps}};
}

json train_events(ExploreApi& api, const ApiRequest& r, const std::string& name) {
  const QueryArgs q(r.query, {"from"});
  const std::string dir = known_run(api, name);
  return {{"run", name}, {"dir", dir}, {"from", q.integer("from", 0, (int64_t)1 << 40, 0)}};
}

json train_stop(ExploreApi& api, const ApiRequest& r, const std::string& name) {
  const JsonBody b(r, {});
  const std::string dir = known_run(api, name);
  if (api.children().signal(train_job(name), SIGTERM)) return {{"run", name}, {"stopping", true}};
  if (const int pid = run_lock_pid(dir); pid > 0 && run_in_progress(dir) && kill(pid, SIGTERM) == 0)
    return {{"run", name}, {"stopping", true}, {"pid", pid}};  // a terminal-started run
  throw ExploreError(409, "not_running", format("the run {} is not training", name), "", {{"run", name}});
}

json train_resume(ExploreApi& api, const ApiRequest& r, const std::string& name) {
  const JsonBody b(r, {"threads"});
  const std::string dir = known_run(api, name);
  const int threads = (int)b.integer("threads", 1, kMaxThreads, 0);
  std::lock_guard<std::mutex> starting(api.start_mutex());
  check_idle(api);
  if (run_in_progress(dir))
    throw ExploreError(409, "training_running", format("the run {} is training (pid {}): stop it first",
                       name, run_lock_pid(dir)), "", {{"running", name}});
  const RunSummary s = summarize_run(dir, json::array());
  if (!s.checkpoint || s.done)
    throw ExploreError(409, "nothing_to_resume", s.done ? format("the run {} is finished: nothing is left to train", name)
                       : format("the run {} has no checkpoint to continue from", name), "", {{"run", name}});
  const std::vector<std::string> commands = run_commands(dir);
  // A page-started run's first command, else (a terminal run) its first start record's options.
  const std::vector<std::string> first = commands.empty() ? start_record_argv(read_records(dir))
                                                          : split_command(commands[0]);
  const std::vector<std::string> data = option_values(first, "--data");
  const std::string corpus = data.empty() ? corpus_dir(runs_dir(api), default_corpus(runs_dir(api))) : data.back();
  // The thread count of the checkpoint's run unless asked: its bits depend on it (train/thread_lanes.h).
  const std::vector<std::string> started = option_values(first, "--threads");
  const int t = threads > 0 ? threads : s.checkpoint_threads > 0 ? s.checkpoint_threads
                                      : started.empty() ? threads_max() : std::stoi(started.back());
  if (!corpus_ready(corpus))
    throw ExploreError(409, "corpus_missing", format("the run's corpus {} is missing: prepare it first", corpus),
                       "", {{"dir", corpus}});
  const std::vector<std::string> argv = resume_argv(corpus, dir, t, first);
  start_training(api, name, dir, argv, true);
  return {{"run", name}, {"command", command_text(argv)}};
}

json corpus_prepare(ExploreApi& api, const ApiRequest& r) {
  const JsonBody b(r, {"source"});
  const std::string source = b.text("source", default_corpus(runs_dir(api)));
  const std::string dir = corpus_dir(runs_dir(api), source, "source");
  std::lock_guard<std::mutex> starting(api.start_mutex());
  check_idle(api);
  std::vector<std::string> argv = prepare_corpus_argv(source, dir, api.program());
  fs::create_directories(runs_dir(api));
  if (!api.children().start({"corpus", source}, "/bin/bash", argv, dir + ".log", false)) check_idle(api);
  return {{"source", source}, {"dir", dir}, {"log", dir + ".log"},
          {"command", command_text({"scripts/prepare_corpus.sh", source, dir})}};
}

json model_load(ExploreApi& api, const ApiRequest& r) {
  const JsonBody b(r, {"run"});
  if (!b.has("run")) throw bad_param("run", "\"run\" is required: the name of the run whose checkpoint to load");
  const std::string name = b.text("run");
  const std::string dir = known_run(api, name);
  if (!summarize_run(dir, json::array()).checkpoint)
    throw ExploreError(409, "no_checkpoint", format("the run {} has no checkpoint yet (one is written every "
                       "--checkpoint-every steps and at the end)", name), "", {{"run", name}});
  api.load_model(dir);
  return {{"run", name}, {"model", api.info()["model"]}};
}

}  // namespace llm0::explore
