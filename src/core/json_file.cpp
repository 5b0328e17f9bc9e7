// JSON files. See json_file.h.
#include "core/json_file.h"

#include <filesystem>
#include <fstream>

#include "core/check.h"

namespace llm0 {

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  LLM0_CHECK(std::filesystem::exists(path), "{} {} does not exist", what, path);
  LLM0_CHECK(std::filesystem::is_regular_file(path), "{} {} is not a regular file", what, path);
  std::ifstream in(path);
  LLM0_CHECK(in.good(), "{} {} cannot be read", what, path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    LLM0_FAIL("{} {}: not valid JSON ({})", what, path, e.what());
  }
}

}  // namespace llm0
