// Dropping the records past a checkpoint from metrics.jsonl. See metrics_log.h.
#include "train/metrics_log.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/json_parse.h"

namespace llm0 {

void drop_metrics_after(const std::string& path, int step) {
  if (!std::filesystem::exists(path)) return;
  std::ifstream in(path);
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = parse_metrics_line(line);
    if (j.is_discarded()) continue;
    if (j.contains("step") && j["step"].is_number() && j["step"].get<double>() > step) continue;
    kept += line + "\n";
  }
  AtomicFile out(path);
  out.write(kept.data(), kept.size());
  out.commit();
}

nlohmann::json parse_metrics_line(const std::string& line) {
  try {
    nlohmann::json j = parse_json(line, "metrics line");
    // Every record has its optimizer step: a line without one (or with a string, a fraction or a
    // negative number there) is no record, written by hand or by something else.
    if (j.is_object() && j.contains("step") && j["step"].is_number_integer() && j["step"].get<int64_t>() >= 0)
      return j;
  } catch (const Error&) {
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

}  // namespace llm0
