// The model presets a learner may train from the explorer: the shipped configs/llm0-*.json
// (llm0-small, its SWA / MLA / MoE / hybrid / shared-KV variants, llm0-tiny, ...), llm0-small first.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::explore {

struct TrainPreset {
  std::string name;     ///< file name without .json, e.g. "llm0-small"
  std::string path;     ///< as found by shipped_file (e.g. "configs/llm0-small.json")
  double parameters = 0;  ///< count_parameters(config).total
  std::string model_type;
  int context = 0;      ///< max_position_embeddings
  std::string note;     ///< the file's "_llm0_note" ("" when none)
};

/// The presets, llm0-small first, then by name; a file that is not a valid config is left out.
std::vector<TrainPreset> train_presets();

/// The preset `name`. Throws ExploreError 400 `unknown_preset` naming it and listing the presets
/// (also as data {"presets": [...]}).
TrainPreset find_preset(const std::string& name);

/// {"name", "parameters", "model_type", "note"} per preset (GET /explore/api/train "presets").
nlohmann::json presets_json(const std::vector<TrainPreset>& presets);

}  // namespace llm0::explore
