// Shared by the explorer's tests: a temporary folder holding stories260K (tests/data, converted
// from llama2.c once per test program) as the loaded model, and GET requests by path and query.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "explore/explore_request.h"
#include "io/llama2c.h"

namespace llm0::testing_fixtures {

/// A folder removed at exit, holding the converted stories260K model at dir()/"s260".
class ExploreModelDir {
 public:
  ExploreModelDir() {
    dir_ = std::filesystem::temp_directory_path() / ("llm0_explore_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    const std::string data = std::string(LLM0_SOURCE_DIR) + "/tests/data/stories260K/";
    convert_llama2c(data + "stories260K.bin", data + "tok512.bin", model());
  }
  ~ExploreModelDir() { std::filesystem::remove_all(dir_); }
  const std::filesystem::path& dir() const { return dir_; }
  std::string model() const { return (dir_ / "s260").string(); }

 private:
  std::filesystem::path dir_;
};

/// GET /explore/api/PATH with `query`.
inline explore::ApiRequest api_get(const std::string& path,
                                   std::vector<std::pair<std::string, std::string>> query = {}) {
  explore::ApiRequest r;
  r.path = "/explore/api/" + path;
  r.query = std::move(query);
  return r;
}

}  // namespace llm0::testing_fixtures
