// `llm0 generate` end to end (binary path LLM0_CLI): a checkpoint written with save_checkpoint plus
// a tokenizer.json trained here; --json output parsed and checked against the library Generator
// and the closed-form counters; text mode (stdout = text + newline, summary on stderr); a training
// run directory (OUT/checkpoint/); --prompts-file; sampling flags; bad input -> non-zero exit.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "cli_runner.h"
#include "generator_fixtures.h"
#include "infer/generator_io.h"
#include "io/checkpoint.h"
#include "ledger/kv_format.h"
#include "ledger/param_count.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class GenerateCli : public ::testing::Test {
 protected:
  static inline fs::path dir;
  static inline std::string ckpt, run_dir;

  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("llm0_test_generate_cli_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "run");
    const Tokenizer tok = corpus_tokenizer(/*eos=*/false);  // no eos: token counts are exact
    tok.save((dir / "tokenizer.json").string());
    Model m(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
    random_weights(m, 21);
    ckpt = (dir / "ckpt").string();
    run_dir = (dir / "run").string();
    save_checkpoint(m, ckpt, (dir / "tokenizer.json").string());
    save_checkpoint(m, run_dir + "/checkpoint", (dir / "tokenizer.json").string());
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  static CmdOut cli(const std::string& args) { return run_cli(args, dir / "stderr.txt"); }
  static json cli_json(const std::string& args) {
    const CmdOut r = cli("generate --json " + args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return json::parse(r.out);
  }
};

TEST_F(GenerateCli, JsonMatchesLibraryAndClosedForms) {
  const json j = cli_json("--model " + ckpt + " --prompt 'the cat' --max-new-tokens 6 --temperature 0");
  GenerationModel gm = load_generation_model(ckpt);
  Generator gen(*gm.model, *gm.tokenizer);
  GenerateOptions o;
  o.max_new_tokens = 6, o.sampler.temperature = 0;
  const GenerateResult r = gen.generate("the cat", o);
  const ModelConfig& c = gm.model->config();
  const uint64_t P = r.prompt_ids.size(), L = (uint64_t)c.num_hidden_layers;
  EXPECT_EQ(j["prompt_ids"].get<std::vector<int>>(), r.prompt_ids);
  EXPECT_EQ(j["generated_ids"].get<std::vector<int>>(), r.generated_ids);
  EXPECT_EQ(j["prompt_tokens"].get<uint64_t>(), P);
  EXPECT_EQ(j["generated_tokens"].get<int>(), 6);
  EXPECT_EQ(j["stop_reason"], "max_new_tokens");
  EXPECT_TRUE(j["stop_string"].is_null());
  EXPECT_EQ(j["context"].get<int>(), c.max_position_embeddings);
  EXPECT_EQ(j["kv_cache_bytes"].get<uint64_t>(),
            L * 2 * (uint64_t)c.num_key_value_heads * (uint64_t)c.head_dim * 4 * (P + 5));
  EXPECT_EQ(j["kv_projected"].get<uint64_t>(), L * (P + 5));
  ASSERT_EQ(j["layers"].size(), L);
  uint64_t qk = P * (P + 1) / 2;
  for (uint64_t n = P + 1; n <= P + 5; ++n) qk += n;
  EXPECT_EQ(j["layers"][0]["qk_scores"].get<uint64_t>(), qk * (uint64_t)c.num_attention_heads);
  EXPECT_EQ(j["qk_scores"].get<uint64_t>(), L * qk * (uint64_t)c.num_attention_heads);
  EXPECT_TRUE(j["text"].is_string());
  for (const char* k : {"prefill_seconds", "decode_seconds", "prefill_tokens_per_second",
                        "decode_tokens_per_second"})
    EXPECT_GT(j[k].get<double>(), 0.0) << k;
}

// A mixture-of-experts model: --json carries what the text summary prints — total and active
// parameters (the ledger's) and the tokens routed to each expert of each MoE layer (K per token
// that went through the model: the prompt and every generated token but the last).
TEST_F(GenerateCli, JsonReportsParametersAndExpertTokens) {
  const Tokenizer tok = Tokenizer::load(ckpt + "/tokenizer.json");
  ModelConfig c = moe_model_config("qwen3_moe");  // layer 0 dense, layer 1 MoE, top 2 of 5
  c.vocab_size = tok.vocab_size();
  Model m(c);
  random_weights(m, 5);
  const std::string moe = (dir / "moe").string();
  save_checkpoint(m, moe, (dir / "tokenizer.json").string());
  const std::string args = "--model " + moe + " --prompt 'the cat sat' --max-new-tokens 4 --temperature 0";
  const json j = cli_json(args);
  const ParamCount n = count_parameters(c);
  EXPECT_EQ(j["total_parameters"].get<double>(), n.total);
  EXPECT_EQ(j["active_parameters"].get<double>(), n.active);
  EXPECT_LT(n.active, n.total);
  const uint64_t tokens = j["prompt_tokens"].get<uint64_t>() + 4 - 1;
  ASSERT_EQ(j["layers"].size(), 2u);
  EXPECT_FALSE(j["layers"][0].contains("expert_tokens"));  // the dense layer
  const std::vector<uint64_t> routed = j["layers"][1]["expert_tokens"].get<std::vector<uint64_t>>();
  ASSERT_EQ(routed.size(), 5u);
  uint64_t sum = 0;
  std::string list;
  for (uint64_t v : routed) sum += v, list += (list.empty() ? "" : " ") + std::to_string(v);
  EXPECT_EQ(sum, 2 * tokens);
  const CmdOut text = cli("generate " + args);  // the same figures in the text summary
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.err.find("tokens per expert:    layer 1: " + list), std::string::npos) << text.err;
  EXPECT_NE(text.err.find(format_thousands((uint64_t)n.active) + " active per token"),
            std::string::npos) << text.err;
}

TEST_F(GenerateCli, NoCacheAndChunksGiveSameTokens) {
  const std::string base = "--model " + ckpt + " --prompt 'hello world, the' --max-new-tokens 7 --temperature 0";
  const json a = cli_json(base);
  for (const std::string extra : {"--no-cache", "--chunk 1", "--chunk 2", "--chunk 50"})
    EXPECT_EQ(cli_json(base + " " + extra)["generated_ids"], a["generated_ids"]) << extra;
  const json naive = cli_json(base + " --no-cache");
  const uint64_t P = a["prompt_tokens"].get<uint64_t>();
  uint64_t kv = 0;
  for (uint64_t n = P; n <= P + 6; ++n) kv += n;
  EXPECT_EQ(naive["layers"][1]["kv_projected"].get<uint64_t>(), kv);
}

TEST_F(GenerateCli, TextModeStreamsTextAndSummary) {
  const std::string args = "--model " + ckpt + " --prompt 'café' --max-new-tokens 5 --temperature 0";
  const json j = cli_json(args);
  const CmdOut r = cli("generate " + args);
  ASSERT_EQ(r.rc, 0) << r.err;
  const Tokenizer tok = Tokenizer::load(ckpt + "/tokenizer.json");
  EXPECT_EQ(r.out, tok.decode(j["generated_ids"].get<std::vector<int>>()) + "\n");
  for (const char* k : {"prompt tokens:", "generated tokens:", "stop reason:          max_new_tokens",
                        "prefill:", "decode:", "tokens/s", "kv-cache bytes in use:",
                        "K/V vectors projected:", "q·k scores:", "per layer:"})
    EXPECT_NE(r.err.find(k), std::string::npos) << k << "\n" << r.err;
}

TEST_F(GenerateCli, TrainingRunDirectoryResolvesToItsCheckpoint) {
  const std::string args = " --prompt 'the dog' --max-new-tokens 4 --temperature 0";
  EXPECT_EQ(cli_json("--model " + run_dir + args)["generated_ids"],
            cli_json("--model " + ckpt + args)["generated_ids"]);
}

TEST_F(GenerateCli, PromptsFileRunsEachLineIndependently) {
  const fs::path file = dir / "prompts.txt";
  std::ofstream(file) << "the cat\n\nhello world\r\nthe cat\n";
  const CmdOut r = cli("generate --json --model " + ckpt + " --prompts-file " + file.string() +
                       " --max-new-tokens 5 --temperature 0");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<json> js;
  for (std::string line; std::getline(lines, line);) js.push_back(json::parse(line));
  ASSERT_EQ(js.size(), 3u);
  const std::string one = " --max-new-tokens 5 --temperature 0 --model " + ckpt;
  EXPECT_EQ(js[0]["generated_ids"], cli_json("--prompt 'the cat'" + one)["generated_ids"]);
  EXPECT_EQ(js[1]["generated_ids"], cli_json("--prompt 'hello world'" + one)["generated_ids"]);
  EXPECT_EQ(js[2]["generated_ids"], js[0]["generated_ids"]);  // own cache: no leftover state
  EXPECT_EQ(js[2]["kv_projected"], js[0]["kv_projected"]);
}

TEST_F(GenerateCli, SamplingFlagsAreSeededAndStopIsRepeatable) {
  const std::string args = "--model " + ckpt + " --prompt 'the' --max-new-tokens 12 --temperature 0.8"
                           " --top-k 40 --top-p 0.95 --min-p 0.01 --repetition-penalty 1.2"
                           " --stop zzzz --stop 'qq qq' --threads 1";
  const json a = cli_json(args + " --seed 5");
  EXPECT_EQ(cli_json(args + " --seed 5")["generated_ids"], a["generated_ids"]);
  EXPECT_EQ(a["generated_tokens"].get<int>(), 12);
}

TEST_F(GenerateCli, BadInputFailsWithClearMessage) {
  struct Case {
    std::string args, message;
  };
  const std::string m = "--model " + ckpt;
  const std::string long_prompt(400, 'x');
  const std::vector<Case> cases = {
      {"--model " + (dir / "nope").string() + " --prompt hi", "no checkpoint"},
      {"--model " + dir.string() + " --prompt hi", "no checkpoint"},
      {m + " --prompt " + quote(long_prompt) + " --max-context 3", "context"},
      {m + " --prompt hi --temperature -1", "temperature"},
      {m + " --prompt hi --top-p 0", "top_p"},
      {m + " --prompt hi --top-p 1.5", "top_p"},
      {m + " --prompt hi --bogus-flag", "bogus"},
      {m, "--prompt"},
      {m + " --prompt hi --prompt again", "--prompt"},
      {m + " --prompt hi --max-context 100000", "max_context"},
  };
  for (const Case& c : cases) {
    const CmdOut r = cli("generate " + c.args);
    EXPECT_NE(r.rc, 0) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\nstderr: " << r.err;
  }
}

}  // namespace

// An all-sliding model with sinks (W = 4): generation with the ring caches equals generation
// without a cache, the cache holds W positions per layer however long the text, and at the
// position limit (--max-context 20) it stops with context_full and says why.
TEST_F(GenerateCli, SlidingWindowModelGeneratesToThePositionLimit) {
  const Tokenizer tok = Tokenizer::load((dir / "tokenizer.json").string());
  ModelConfig c = sliding_config(4, {1, 1}, true);
  c.vocab_size = tok.vocab_size();
  Model m(c);
  random_weights(m, 23);
  const std::string sw = (dir / "sliding").string();
  save_checkpoint(m, sw, (dir / "tokenizer.json").string());
  const std::string base = "--model " + sw + " --prompt 'the cat sat' --max-new-tokens 100 "
                           "--temperature 0 --max-context 20";
  const json a = cli_json(base), b = cli_json(base + " --no-cache");
  EXPECT_EQ(a["generated_ids"], b["generated_ids"]);
  EXPECT_EQ(a["stop_reason"], "context_full");
  EXPECT_EQ(a["prompt_tokens"].get<int>() + a["generated_tokens"].get<int>(), 20);
  // 2 sliding layers × W positions × 2 (K, V) × Hkv × D × 4 bytes, whatever the length.
  EXPECT_EQ(a["kv_cache_bytes"].get<uint64_t>(),
            2u * 4 * 2 * (uint64_t)c.num_key_value_heads * (uint64_t)c.head_dim * 4);
  const CmdOut text = cli(("generate " + base).c_str());
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.err.find("is full (positions end at max_position_embeddings"), std::string::npos)
      << text.err;
}
