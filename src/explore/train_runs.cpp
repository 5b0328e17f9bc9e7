// The explorer's runs directory (train_runs.h).
#include "explore/train_runs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/json_parse.h"
#include "explore/explore_request.h"
#include "io/checkpoint.h"
#include "train/metrics_log.h"
#include "train/train_state.h"

namespace llm0::explore {

namespace fs = std::filesystem;
using nlohmann::json;

bool valid_run_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalnum((unsigned char)name[0])) return false;
  if (name.rfind("corpus", 0) == 0) return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum((unsigned char)ch) || ch == '.' || ch == '_' || ch == '-';
  });
}

void check_run_name(const std::string& name, const std::string& param) {
  if (valid_run_name(name)) return;
  const std::string why = name.rfind("corpus", 0) == 0 ? "names starting with \"corpus\" are the corpora's"
                                                        : "a name is 1 to 64 letters, digits, '.', '_' or '-', "
                                                          "starting with a letter or digit: not a path";
  throw ExploreError(400, "invalid_run_name", format("\"{}\" cannot name a run: {}", text_excerpt(name), why),
                     "", {{"param", param}});
}

std::string run_path(const std::string& runs_dir, const std::string& name) {
  return (fs::path(runs_dir) / name).string();
}

bool is_run(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "metrics.jsonl", ec) || fs::is_directory(fs::path(dir) / "checkpoint", ec) ||
         fs::is_regular_file(fs::path(dir) / "command.txt", ec) || fs::is_regular_file(fs::path(dir) / "train.lock", ec);
}

std::vector<std::string> list_runs(const std::string& runs_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (valid_run_name(name) && it->is_directory(ec) && is_run(it->path().string())) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

json read_records(const std::string& run_dir, size_t from) {
  json records = json::array();
  std::ifstream in(fs::path(run_dir) / "metrics.jsonl", std::ios::binary);
  size_t seen = 0;
  for (std::string line; std::getline(in, line);) {
    json r = parse_metrics_line(line);
    if (r.is_discarded() || seen++ < from) continue;
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<std::string> run_commands(const std::string& run_dir) {
  std::vector<std::string> lines;
  std::ifstream in(fs::path(run_dir) / "command.txt", std::ios::binary);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string tail_lines(const std::string& path, int lines) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg(), start = std::max<std::streamoff>(0, size - (64 << 10));
  std::string text((size_t)(size - start), '\0');
  in.seekg(start);
  in.read(text.data(), (std::streamsize)text.size());
  size_t at = text.size();
  if (at > 0 && text[at - 1] == '\n') --at;  // the last line's own newline
  for (int n = 0; n < lines && at != std::string::npos && at > 0; ++n) at = text.rfind('\n', at - 1);
  return at == std::string::npos || at == 0 ? text : text.substr(at + 1);
}

RunSummary summarize_run(const std::string& run_dir, const json& records) {
  RunSummary s;
  for (const json& r : records) {
    const int step = r.value("step", 0);
    if (r.contains("loss")) s.steps = step;
    for (const char* key : {"total_steps", "planned_total_steps", "replanned_total_steps"})
      if (r.contains(key) && r[key].is_number()) s.total_steps = r[key].get<int>();
    if (r.contains("val_loss") && r["val_loss"].is_number()) s.val_loss = r["val_loss"].get<double>();
  }
  try {
    const TrainState state = read_train_state(resolve_checkpoint_dir(run_dir));
    s.checkpoint = true, s.checkpoint_step = state.step, s.done = state.step >= state.total_steps;
    s.checkpoint_threads = state.threads;
  } catch (const Error&) {  // no checkpoint (yet), or one being replaced
  }
  return s;
}

}  // namespace llm0::explore
