// `llm0 convert --model DIR` checks what it copies (io/checkpoint_tokenizer.h): a tokenizer.json
// that is not JSON, one with more tokens than the model has embedding rows, or a config.json
// eos_token_id past the tokenizer is refused with exit 1 naming the file, and nothing is written;
// the valid pair is copied unchanged. Issue 43: a tokenizer.json that was not JSON was copied
// through with exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "gguf_fixtures.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using namespace testing_fixtures;

std::string temp(const std::string& name) { return test::fresh_temp_path("convert_checks", name); }

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// A tiny llama checkpoint with a trained 290-token tokenizer, model vocab_size `vocab`, then
// `edit` applied to the directory.
std::string checkpoint(const std::string& name, int vocab, const std::function<void(const fs::path&)>& edit) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  c.vocab_size = vocab;
  c.validate();
  const std::string dir = make_checkpoint(c, name, true);
  edit(dir);
  return dir;
}

CmdOut convert(const std::string& dir, const std::string& out) {
  return run_cli("convert --model " + quote(dir) + " --output " + quote(out) + " --dtype f32",
                 temp("err.txt"));
}

struct Case {
  const char* name;
  int vocab;
  std::function<void(const fs::path&)> edit;
  std::string message;
};

TEST(ConvertChecks, WhatConvertWouldCopyIsRefusedByName) {
  const std::vector<Case> cases = {
      {"not_json", 300, [](const fs::path& d) { write_text(d / "tokenizer.json", "{\"model\": [1,"); },
       "tokenizer.json: not valid JSON"},
      {"not_a_tokenizer", 300, [](const fs::path& d) { write_text(d / "tokenizer.json", "[1, 2]"); },
       "tokenizer.json"},
      {"more_tokens_than_rows", 280, [](const fs::path&) {},
       "the model's vocab_size=280"},
      {"eos_past_tokenizer", 300, [](const fs::path& d) {
         nlohmann::json j = nlohmann::json::parse(read_file(d / "config.json"));
         j["eos_token_id"] = 295;  // an embedding row, but no token of the 290
         write_text(d / "config.json", j.dump());
       }, "tokenizer.json: config.json eos_token_id=295 is not a token of the tokenizer (it holds 290"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = checkpoint(c.name, c.vocab, c.edit), out = temp(std::string(c.name) + "_out");
    const CmdOut r = convert(dir, out);
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(dir), std::string::npos) << "names the file: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written on failure";
  }
}

TEST(ConvertChecks, TheValidTokenizerIsCopiedUnchanged) {
  const std::string dir = checkpoint("valid", 300, [](const fs::path&) {}), out = temp("valid_out");
  const CmdOut r = convert(dir, out);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(read_file(fs::path(out) / "tokenizer.json"), read_file(fs::path(dir) / "tokenizer.json"));
}

}  // namespace
}  // namespace llm0
