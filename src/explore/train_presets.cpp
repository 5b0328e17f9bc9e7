// The explorer's training presets (train_presets.h).
#include "explore/train_presets.h"

#include <algorithm>
#include <filesystem>

#include "config/config.h"
#include "core/json_file.h"
#include "core/json_parse.h"
#include "core/shipped_file.h"
#include "explore/explore_request.h"
#include "ledger/param_count.h"

namespace llm0::explore {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<TrainPreset> train_presets() {
  const fs::path dir = fs::path(shipped_file("configs/llm0-small.json")).parent_path();
  std::vector<TrainPreset> presets;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() != ".json" || stem.rfind("llm0-", 0) != 0) continue;
    try {
      const json j = read_json_file(e.path().string());
      const ModelConfig c = ModelConfig::from_json(j, e.path().string());
      presets.push_back({stem, e.path().string(), count_parameters(c).total, c.model_type,
                         c.max_position_embeddings, j.value("_llm0_note", "")});
    } catch (const Error&) {  // not a model config: not offered
    }
  }
  std::sort(presets.begin(), presets.end(), [](const TrainPreset& a, const TrainPreset& b) {
    return std::pair(a.name != "llm0-small", a.name) < std::pair(b.name != "llm0-small", b.name);
  });
  return presets;
}

TrainPreset find_preset(const std::string& name) {
  const std::vector<TrainPreset> presets = train_presets();
  json names = json::array();
  std::string list;
  for (const TrainPreset& p : presets) {
    if (p.name == name) return p;
    names.push_back(p.name), list += (list.empty() ? "" : ", ") + p.name;
  }
  throw ExploreError(400, "unknown_preset", format("\"{}\" is not a preset (configs/NAME.json): {}",
                     text_excerpt(name), list), "", {{"param", "config"}, {"presets", names}});
}

json presets_json(const std::vector<TrainPreset>& presets) {
  json a = json::array();
  for (const TrainPreset& p : presets)
    a.push_back({{"name", p.name}, {"parameters", (int64_t)p.parameters}, {"model_type", p.model_type},
                 {"note", p.note}});
  return a;
}

}  // namespace llm0::explore
