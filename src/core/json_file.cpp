// JSON files. See json_file.h.
#include "core/json_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/check.h"

namespace llm0 {

nlohmann::json read_json_file(const std::string& path, std::string_view what, std::string* text) {
  LLM0_CHECK(std::filesystem::exists(path), "{} {} does not exist", what, path);
  LLM0_CHECK(std::filesystem::is_regular_file(path), "{} {} is not a regular file", what, path);
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "{} {} cannot be read", what, path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLM0_CHECK(!in.bad(), "{} {} cannot be read", what, path);
  nlohmann::json j = parse_json(bytes, format("{} {}", what, path));
  if (text) *text = std::move(bytes);
  return j;
}

}  // namespace llm0
