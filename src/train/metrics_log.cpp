// Dropping the records past a checkpoint from metrics.jsonl. See metrics_log.h.
#include "train/metrics_log.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"

namespace llm0 {

void drop_metrics_after(const std::string& path, int step) {
  if (!std::filesystem::exists(path)) return;
  std::ifstream in(path);
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    if (j.contains("step") && j["step"].is_number() && j["step"].get<double>() > step) continue;
    kept += line + "\n";
  }
  AtomicFile out(path);
  out.write(kept.data(), kept.size());
  out.commit();
}

}  // namespace llm0
