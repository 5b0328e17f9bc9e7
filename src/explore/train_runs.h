// The explorer's runs directory (`llm0 explore --runs DIR`, default "runs"): the only place the
// pages may write. A run is named by a NAME, never a path; a run is a directory of it holding
// metrics.jsonl or checkpoint/ (page-started or terminal-started alike); what the pages show of it
// is read from there (train_spec: RUN/metrics.jsonl, RUN/train.log, RUN/command.txt, RUN/checkpoint/).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::explore {

/// `name` matches [A-Za-z0-9][A-Za-z0-9._-]{0,63} and does not start with "corpus" (the corpora's
/// directories, train_corpora.h).
bool valid_run_name(const std::string& name);

/// Throws ExploreError 400 `invalid_run_name` (data {"param": param}) unless valid_run_name(name),
/// saying what a name may hold.
void check_run_name(const std::string& name, const std::string& param = "out");

/// RUNS/NAME as text (the runs directory as given: relative paths stay relative).
std::string run_path(const std::string& runs_dir, const std::string& name);

/// `dir` holds metrics.jsonl, checkpoint/, command.txt (a page-started run before its first record)
/// or train.lock (a terminal-started one).
bool is_run(const std::string& dir);

/// The names of the runs under `runs_dir` (valid names only), sorted; none when it is missing.
std::vector<std::string> list_runs(const std::string& runs_dir);

/// Every record of RUN/metrics.jsonl from record `from` on (0 = all), in file order; lines that
/// are not a JSON object (a line cut short by a crash) are skipped and not counted.
nlohmann::json read_records(const std::string& run_dir, size_t from = 0);

/// The first line of each session's command (RUN/command.txt, page-started runs), or none.
std::vector<std::string> run_commands(const std::string& run_dir);

/// The last `lines` lines of a text file (at most its last 64 KiB), "" when missing.
std::string tail_lines(const std::string& path, int lines);

/// What a run's records and checkpoint say (GET /explore/api/train "runs").
struct RunSummary {
  int steps = 0;         ///< the last step record's step
  int total_steps = 0;   ///< the schedule's length as last planned (0 = unknown)
  std::optional<double> val_loss;  ///< the last validation loss
  bool checkpoint = false;  ///< RUN/checkpoint (or its .old) holds a checkpoint
  int checkpoint_step = 0;  ///< its step (trainer_state.json)
  int checkpoint_threads = 0;  ///< the threads it was trained with (0 = not recorded)
  bool done = false;        ///< the checkpoint is at the end of its schedule: nothing to resume
};
RunSummary summarize_run(const std::string& run_dir, const nlohmann::json& records);

}  // namespace llm0::explore
