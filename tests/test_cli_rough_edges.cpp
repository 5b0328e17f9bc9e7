// The command line's rough edges (issue 16, part 5), each run through the real binary (LLM0_CLI):
// error messages without source locations (kept under LLM0_DEBUG=1), --prompt "" starting from
// <|endoftext|>, non-finite and negative flag values refused with short messages, a mistyped
// subcommand answered with a suggestion, `export gguf --output DIR` naming the directory, the
// warmup actually used printed by `train`, and bench/peers' npm install done by the scripts.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "generator_fixtures.h"
#include "io/checkpoint.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

class CliRoughEdges : public ::testing::Test {
 protected:
  static inline fs::path dir;
  static inline std::string ckpt, ckpt_no_eos;

  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("llm0_test_cli_edges_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (bool eos : {true, false}) {
      const Tokenizer tok = corpus_tokenizer(eos);
      const std::string tok_path = (dir / (eos ? "tok_eos.json" : "tok.json")).string();
      tok.save(tok_path);
      Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
      random_weights(m, 5);
      const std::string out = (dir / (eos ? "ckpt_eos" : "ckpt")).string();
      save_checkpoint(m, out, tok_path);
      (eos ? ckpt : ckpt_no_eos) = out;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  // Runs `env LLM0 args` (env: variable assignments for the shell, may be empty).
  static CmdOut cli(const std::string& args, const std::string& env = "") {
    return run_cli(args, dir / "stderr.txt", env);
  }
  // Expects a failure whose stderr is one short line (paths aside) containing `text`.
  static void expect_short_error(const std::string& args, const std::string& text) {
    const CmdOut r = cli(args);
    EXPECT_NE(r.rc, 0) << args;
    EXPECT_NE(r.err.find(text), std::string::npos) << args << " -> " << r.err;
    std::string text_only = r.err;  // the length that counts is the message's, not the paths'
    for (size_t at; (at = text_only.find(dir.string())) != std::string::npos;)
      text_only.erase(at, dir.string().size());
    EXPECT_LT(text_only.size(), 140u) << args << " -> " << r.err;  // was 300+ digits for --threads
    EXPECT_EQ(r.err.find(".cpp:"), std::string::npos) << args << " -> " << r.err;
  }
};

TEST_F(CliRoughEdges, ErrorsOmitTheSourceLocationUnlessLlm0Debug) {
  const std::string args = "generate --model " + (dir / "missing").string() + " --prompt hi";
  const CmdOut plain = cli(args);
  EXPECT_EQ(plain.rc, 1);
  EXPECT_EQ(plain.err.rfind("llm0: error: ", 0), 0u) << plain.err;
  EXPECT_NE(plain.err.find("missing"), std::string::npos) << plain.err;
#ifdef NDEBUG  // a debug build always shows the location
  EXPECT_EQ(plain.err.find(".cpp:"), std::string::npos) << plain.err;
#endif
  const CmdOut debug = cli(args, "LLM0_DEBUG=1");
  EXPECT_EQ(debug.rc, 1);
  EXPECT_NE(debug.err.find(".cpp:"), std::string::npos) << debug.err;
  EXPECT_NE(debug.err.find("missing"), std::string::npos) << debug.err;
}

TEST_F(CliRoughEdges, EmptyPromptStartsFromEndOfTextOrIsRefusedForWhatItIs) {
  const CmdOut r = cli("generate --json --model " + ckpt + " --prompt '' --max-new-tokens 3 --temperature 0");
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const int eos = Tokenizer::load(ckpt + "/tokenizer.json").eos_id();
  EXPECT_EQ(j["prompt_ids"], nlohmann::json::array({eos}));
  EXPECT_LE(j["generated_ids"].size(), 3u);
  expect_short_error("generate --model " + ckpt_no_eos + " --prompt ''", "the prompt is empty");
  expect_short_error("generate --model " + ckpt, "give exactly one of --prompt");
}

TEST_F(CliRoughEdges, NonFiniteAndNegativeFlagValuesAreRefused) {
  const std::string gen = "generate --model " + ckpt + " --prompt hi ";
  expect_short_error(gen + "--temperature inf", "temperature");
  expect_short_error(gen + "--temperature nan", "temperature");
  expect_short_error(gen + "--top-p nan", "top_p");
  expect_short_error(gen + "--seed -1", "--seed");
  expect_short_error(gen + "--threads -1", "--threads");
  expect_short_error(gen + "--seed 18446744073709551616", "--seed");  // 2^64
  EXPECT_EQ(cli(gen + "--seed 18446744073709551615 --max-new-tokens 1").rc, 0);
}

TEST_F(CliRoughEdges, MistypedCommandGetsASuggestion) {
  const CmdOut r = cli("genrate --prompt hi");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "llm0: error: unknown command genrate; did you mean generate?\n");
  EXPECT_EQ(cli("lessn").err, "llm0: error: unknown command lessn; did you mean lesson?\n");
  EXPECT_EQ(cli("zzzzzzzz").err, "llm0: error: unknown command zzzzzzzz\n");
}

TEST_F(CliRoughEdges, GgufExportToADirectorySaysSo) {
  const fs::path out = dir / "an_existing_dir";
  fs::create_directories(out);
  expect_short_error("export gguf --model " + ckpt + " --output " + out.string(), "is a directory");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

TEST_F(CliRoughEdges, TrainPrintsTheWarmupItUses) {
  const fs::path corpus = dir / "corpus.txt", config = dir / "config.json";
  std::ofstream c(corpus);
  for (int i = 0; i < 60; ++i) c << "document " << i << ": the cat sat on the mat, " << i * 7 << " times.\n\n";
  c.close();
  std::ofstream(config) << R"({"vocab_size": 300, "hidden_size": 16, "intermediate_size": 32,
      "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
      "max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  const CmdOut r = cli("train --config " + config.string() + " --data " + corpus.string() + " --out " +
                       (dir / "run").string() + " --max-steps 10 --warmup-steps 4 --batch-size 2 "
                       "--seq-len 16 --eval-every 10 --eval-batches 1 --threads 1");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("warmup: 1 step (--warmup-steps 4 capped at a tenth of the 10-step schedule)"),
            std::string::npos) << r.out;
  EXPECT_NE(cli("train --help").out.find("at most a tenth of the schedule"), std::string::npos);
}

TEST_F(CliRoughEdges, BenchPeersRunsNpmInstallWhenNeeded) {
  // A fake npm on PATH records where it ran and creates the package folder, as npm install would.
  const fs::path bin = dir / "bin", peers = dir / "peers", log = dir / "npm.log";
  fs::create_directories(bin);
  fs::create_directories(peers);
  std::ofstream(bin / "npm") << "#!/bin/sh\necho \"$PWD $*\" >> " << log.string()
                             << "\nmkdir -p node_modules/node-llama-cpp\n";
  fs::permissions(bin / "npm", fs::perms::owner_all);
  const std::string run = "PATH=" + bin.string() + ":$PATH PEERS=" + peers.string() + " " +
                          std::string(LLM0_SOURCE_DIR) + "/scripts/peers_npm_install.sh > " +
                          (dir / "npm_stdout.txt").string() + " 2>/dev/null";
  ASSERT_EQ(std::system(run.c_str()), 0);
  EXPECT_EQ(read_file(log), peers.string() + " install --no-audit --no-fund\n");
  EXPECT_EQ(read_file(dir / "npm_stdout.txt"), "");  // build_llama_bench.sh's stdout stays its own
  ASSERT_EQ(std::system(run.c_str()), 0);  // already installed: npm is not run again
  EXPECT_EQ(read_file(log), peers.string() + " install --no-audit --no-fund\n");
}

}  // namespace
