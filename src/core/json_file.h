// Reading a JSON file with errors that name it (config.json, tokenizer.json, worlds, indexes).
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json_parse.h"

namespace llm0 {

/// Parses the JSON file at `path` (read whole, then parsed: several times faster than parsing
/// from a stream on a 30 MB tokenizer.json). `what` describes it in errors ("model config
/// file"); `text`, when given, receives the file's bytes. Throws llm0::Error naming the path
/// when it is missing, not a regular file (e.g. a directory), unreadable, not valid JSON (with
/// the parser's position) or nested deeper than kMaxJsonDepth (JsonTooDeep; see parse_json).
nlohmann::json read_json_file(const std::string& path, std::string_view what = "JSON file",
                              std::string* text = nullptr);

}  // namespace llm0
