// No silent no-ops on the command line, run through the real binary (LLM0_CLI): a flag that
// cannot apply is refused by name with its value and why, status 1 — --mla-decode on a model
// without multi-head latent attention, --delta-chunk on one without Gated DeltaNet layers (every
// command that takes them: forward, generate, bench generate, bench context), and forward
// --chunks whose sizes add up to more than the tokens given. The defaults, and each flag where it
// applies, still run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.h"
#include "generator_fixtures.h"
#include "io/checkpoint.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

class CliNoSilentNoops : public ::testing::Test {
 protected:
  static inline fs::path dir;
  static inline std::string llama, mla, hybrid, llama_json;

  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("llm0_test_cli_noops_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const Tokenizer tok = corpus_tokenizer(false);
    const std::string tok_path = (dir / "tok.json").string();
    tok.save(tok_path);
    auto save = [&](const ModelConfig& c, const std::string& name, const std::string& tokenizer) {
      Model m(c);
      random_weights(m, 5);
      save_checkpoint(m, (dir / name).string(), tokenizer);
      return (dir / name).string();
    };
    llama = save(tiny_config_vocab(Heads::GQA, tok.vocab_size()), "llama", tok_path);
    mla = save(mla_model_config(0), "mla", "");
    hybrid = save(hybrid_config({1, 0}, false), "hybrid", "");
    llama_json = llama + "/config.json";
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  static CmdOut cli(const std::string& args) { return run_cli(args, dir / "stderr.txt"); }
  // `forward` of 3 tokens on checkpoint `ckpt` with `flags`.
  static CmdOut forward(const std::string& ckpt, const std::string& flags) {
    return cli("forward --model " + ckpt + " --tokens '1 2 3' --output " +
               (dir / "logits.npy").string() + " " + flags);
  }
  // Expects status 1 and `message` on stderr.
  static void expect_refused(const CmdOut& r, const std::string& message) {
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_EQ(r.err.rfind("llm0: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected: " << message << "\ngot: " << r.err;
  }
};

const std::string kNoMla = "the model (model_type llama) has no multi-head latent attention (MLA) layers";
const std::string kNoDelta = "the model (model_type llama) has no Gated DeltaNet (linear_attention) layers";

TEST_F(CliNoSilentNoops, MlaDecodeAndDeltaChunkAreRefusedWhereTheyCannotApply) {
  expect_refused(forward(llama, "--mla-decode expanded"), "--mla-decode expanded cannot apply: " + kNoMla);
  expect_refused(forward(llama, "--mla-decode Absorbed"), "--mla-decode Absorbed cannot apply: " + kNoMla);
  expect_refused(forward(llama, "--delta-chunk 8"), "--delta-chunk 8 cannot apply: " + kNoDelta);
  expect_refused(forward(llama, "--delta-chunk 0"), "--delta-chunk 0 cannot apply: " + kNoDelta);
  expect_refused(forward(mla, "--delta-chunk 8"),
                 "--delta-chunk 8 cannot apply: the model (model_type deepseek_v2) has no Gated "
                 "DeltaNet (linear_attention) layers");
  expect_refused(forward(hybrid, "--mla-decode expanded"),
                 "--mla-decode expanded cannot apply: the model (model_type llama) has no "
                 "multi-head latent attention (MLA) layers");
  expect_refused(cli("generate --model " + llama + " --prompt hi --max-new-tokens 2 --mla-decode expanded"),
                 "--mla-decode expanded cannot apply: " + kNoMla);
  expect_refused(cli("generate --model " + llama + " --prompt hi --max-new-tokens 2 --delta-chunk 16"),
                 "--delta-chunk 16 cannot apply: " + kNoDelta);
  expect_refused(cli("bench generate --config " + llama_json + " --prompt-tokens 2 --gen-tokens 2 "
                     "--repeats 1 --mla-decode expanded"),
                 "--mla-decode expanded cannot apply: " + kNoMla);
  expect_refused(cli("bench context --config " + llama_json + " --contexts 4 --decode-tokens 2 "
                     "--mla-decode absorbed"),
                 "--mla-decode absorbed cannot apply: " + kNoMla);
}

TEST_F(CliNoSilentNoops, DefaultsAndFlagsThatApplyStillRun) {
  EXPECT_EQ(forward(llama, "").rc, 0) << forward(llama, "").err;
  EXPECT_EQ(forward(mla, "--mla-decode expanded --chunks 1").rc, 0);
  EXPECT_EQ(forward(hybrid, "--delta-chunk 2 --chunks 2").rc, 0);
  const CmdOut gen = cli("generate --model " + llama + " --prompt hi --max-new-tokens 2");
  EXPECT_EQ(gen.rc, 0) << gen.err;
}

// --chunks gives chunk sizes (prefill the first, then each, then single tokens): sizes adding up
// to more than the tokens would be cut short or never run.
TEST_F(CliNoSilentNoops, ChunksPastTheTokensAreRefused) {
  expect_refused(forward(llama, "--chunks 9"), "--chunks 9: the chunk sizes add up to 9 tokens, but "
                 "the sequence has only 3 (a chunk past its end cannot apply)");
  expect_refused(forward(llama, "--chunks 2,2"), "--chunks 2,2: the chunk sizes add up to 4 tokens, "
                 "but the sequence has only 3 (a chunk past its end cannot apply)");
  for (const char* fits : {"--chunks 3", "--chunks 2,1", "--chunks 1"})
    EXPECT_EQ(forward(llama, fits).rc, 0) << fits;
}

}  // namespace
