// Twin parity for every row of the kind table: llm0 against its PyTorch twin (tools/torch_twin.py)
// — logits, loss, every parameter's gradient and 5 AdamW steps, float32 and float64 twins, the
// tolerances of tests/peer/test_torch_twin.py. All rows run in ONE Python process
// (kinds/twin_table.py, started once for the suite: importing torch takes seconds), so this
// program is registered as one ctest test (label peer), not one per row. Skipped where
// /usr/bin/python3 has no torch/numpy.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../test_util.h"
#include "kind_table.h"

using namespace llm0::kinds;

namespace {

class KindTwin : public ::testing::TestWithParam<KindRow> {
 protected:
  static void SetUpTestSuite() {
    const std::string out = llm0::test::fresh_temp_path("kinds_twin", "results.json");
    const std::string cmd = std::string("/usr/bin/python3 " LLM0_SOURCE_DIR
                                        "/tests/kinds/twin_table.py " LLM0_CLI " ") + out;
    const int rc = std::system(cmd.c_str());
    status_ = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    std::ifstream in(out);
    if (status_ == 0 && in) results_ = nlohmann::json::parse(in);
  }
  static inline int status_ = -1;
  static inline nlohmann::json results_;
};

}  // namespace

TEST_P(KindTwin, MatchesThePyTorchTwin) {
  if (status_ == 77) GTEST_SKIP() << "/usr/bin/python3 has no torch/numpy (scripts/setup.sh installs python3-torch)";
  ASSERT_EQ(status_, 0) << "tests/kinds/twin_table.py failed to run";
  const std::string& name = GetParam().name;
  ASSERT_TRUE(results_.contains(name)) << "no twin result for row " << name;
  for (const auto& msg : results_.at(name)) ADD_FAILURE() << name << ": " << msg.get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindTwin, every_kind(), row_name);
