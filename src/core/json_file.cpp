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
  try {
    nlohmann::json j = nlohmann::json::parse(bytes);
    if (text) *text = std::move(bytes);
    return j;
  } catch (const nlohmann::json::exception& e) {
    LLM0_FAIL("{} {}: not valid JSON ({})", what, path, json_error_text(e));
  }
}

std::string json_error_text(const nlohmann::json::exception& e) {
  if (const auto* p = dynamic_cast<const nlohmann::json::parse_error*>(&e))
    return "syntax error at byte " + std::to_string(p->byte);
  std::string s = e.what();  // "[json.exception.<kind>.<id>] <text>": the text only
  if (s.rfind("[json.exception.", 0) == 0) {
    const size_t end = s.find("] ");
    if (end != std::string::npos) s = s.substr(end + 2);
  }
  return s;
}

}  // namespace llm0
