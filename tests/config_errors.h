// Config error checks shared by the config tests: parsing `j` (as "cfg.json") must throw an
// llm0::Error whose message names `needle` and the file.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"
#include "core/check.h"

namespace llm0::test {

inline void expect_config_error(const nlohmann::json& j, const std::string& needle) {
  try {
    ModelConfig::from_json(j, "cfg.json");
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cfg.json"), std::string::npos) << e.what();
  }
}

}  // namespace llm0::test
