// The kind table: one list of tiny configs, every model kind and combination that exists, which
// drives the cross-cutting model tests (DESIGN.md "Tests iterate one table of tiny configs";
// TESTING.md families 1 and 5): cached = full (test_kinds_cached), chunked = whole and batch of N
// = N alone (test_kinds_batch), bytes = ledger (test_kinds_ledger), gradients vs finite
// differences (test_kinds_grad) and parity with the PyTorch twin (kinds/twin_parity.cpp).
// A new kind = one row in tests/kinds/kind_table.json; every suite below picks it up.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "model/model.h"
#include "../model_fixtures.h"

namespace llm0::kinds {

/// One row of the table: its name (the test-name suffix), the config as written (Hugging Face
/// config.json: the table's base with the row's fields on top), the config parsed, and the
/// settings the C++ suites apply.
struct KindRow {
  std::string name;
  nlohmann::json json;   // what a config.json of this kind holds (the ledger reads it too)
  ModelConfig config;    // ModelConfig::from_json(json)
  double weight_sd = 0.25;     // std of the random weights (testing_fixtures::random_weights)
  int linear_chunk_size = 0;   // Gated DeltaNet's chunk L (0: the model's default)
};

/// The rows of tests/kinds/kind_table.json, parsed once. Throws llm0::Error (naming the row) for
/// a config the engine refuses, std::runtime_error when the file cannot be read.
inline const std::vector<KindRow>& kind_rows() {
  static const std::vector<KindRow> rows = [] {
    const std::string path = LLM0_SOURCE_DIR "/tests/kinds/kind_table.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the kind table " + path);
    const nlohmann::json t = nlohmann::json::parse(in);
    std::vector<KindRow> out;
    for (const nlohmann::json& r : t.at("rows")) {
      KindRow k;
      k.name = r.at("name").get<std::string>();
      k.json = t.at("base");
      k.json.update(r.at("config"));
      k.config = ModelConfig::from_json(k.json, "kind_table.json row " + k.name);
      k.weight_sd = r.value("weight_sd", 0.25);
      k.linear_chunk_size = r.value("linear_chunk_size", 0);
      out.push_back(std::move(k));
    }
    return out;
  }();
  return rows;
}

/// gtest prints a parameter as its row name.
inline void PrintTo(const KindRow& r, std::ostream* os) { *os << r.name; }

/// The test-name suffix of a row (INSTANTIATE_TEST_SUITE_P's name generator).
inline std::string row_name(const ::testing::TestParamInfo<KindRow>& info) {
  return info.param.name;
}

/// Random weights of the row's scale (seeded) and its model settings.
inline void prepare(Model& m, const KindRow& r, unsigned seed) {
  testing_fixtures::random_weights(m, seed, r.weight_sd);
  if (r.linear_chunk_size > 0) m.set_linear_chunk_size(r.linear_chunk_size);
}

/// Every row, for INSTANTIATE_TEST_SUITE_P(..., every_kind(), row_name).
inline auto every_kind() { return ::testing::ValuesIn(kind_rows()); }

}  // namespace llm0::kinds
