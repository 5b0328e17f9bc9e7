// The command line's rough edges (issue 16, part 5), each run through the real binary (LLM0_CLI):
// error messages without source locations (kept under LLM0_DEBUG=1), --prompt "" starting from
// <|endoftext|>, non-finite and negative flag values refused with short messages, a mistyped
// subcommand answered with a suggestion, `export gguf --output DIR` naming the directory, the
// warmup actually used printed by `train`, and bench/peers' npm install done by the scripts;
// `train --resume` taking the schedule from the checkpoint (refusing a different explicit value)
// and logging every step once; command-line parse errors worded like every other error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
  expect_short_error(gen + "--threads 100000", "--threads: must be in [0, 1024]");  // was accepted
  expect_short_error(gen + "--threads 1" + std::string(300, '0'), "a number of 301 digits");
  expect_short_error(gen + "--seed 18446744073709551616", "--seed");  // 2^64
  EXPECT_EQ(cli(gen + "--seed 18446744073709551615 --max-new-tokens 1").rc, 0);
}

// A byte read from a file that would drive the terminal (ESC) or end the message early (NUL) is
// written as \xNN in the error: config.json's model_type "lla<ESC>[31mma<NUL>x" (JSON \u escapes).
TEST_F(CliRoughEdges, ControlBytesInMessagesAreEscaped) {
  const fs::path cfg = dir / "control_bytes.json";
  std::ofstream(cfg) << R"({"model_type": "lla\u001b[31mma\u0000x", "hidden_size": 64})";
  const CmdOut r = cli("params " + cfg.string());
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("\"lla\\x1B[31mma\\x00x\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
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

// init / convert never replace what is at --output without --overwrite: a file, a non-empty
// directory (a run's other files, a user's notes) are refused and left as they were.
TEST_F(CliRoughEdges, InitAndConvertDoNotReplaceAnExistingOutput) {
  const fs::path notes_dir = dir / "project", notes = notes_dir / "notes.txt", file = dir / "afile";
  fs::create_directories(notes_dir);
  std::ofstream(notes) << "important";
  std::ofstream(file) << "x";
  const std::string config = ckpt + "/config.json";
  expect_short_error("init --config " + config + " --output " + notes_dir.string(), "--overwrite");
  expect_short_error("convert --model " + ckpt + " --output " + notes_dir.string() + " --dtype bf16",
                     "not empty");
  expect_short_error("init --config " + config + " --output " + file.string(), "is a file");
  EXPECT_EQ(read_file(notes), "important");
  EXPECT_EQ(read_file(file), "x");
  const CmdOut ok = cli("init --config " + config + " --output " + notes_dir.string() + " --overwrite");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_TRUE(fs::exists(notes_dir / "model.safetensors"));
  EXPECT_FALSE(fs::exists(notes));
}

// "--config C --data D" of a tiny model and corpus (written once) for `llm0 train`.
std::string train_inputs(const fs::path& dir) {
  const fs::path corpus = dir / "corpus.txt", config = dir / "config.json";
  if (!fs::exists(config)) {
    std::ofstream c(corpus);
    for (int i = 0; i < 60; ++i) c << "document " << i << ": the cat sat on the mat, " << i * 7 << " times.\n\n";
    c.close();
    std::ofstream(config) << R"({"vocab_size": 300, "hidden_size": 16, "intermediate_size": 32,
        "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
        "max_position_embeddings": 32, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  }
  return " --config " + config.string() + " --data " + corpus.string();
}

// Rates that are not finite, negative step counts and a balancing flag for a model without
// experts are refused before anything is trained or written.
TEST_F(CliRoughEdges, TrainRefusesNonFiniteRatesAndBalancingWithoutExperts) {
  const std::string train = "train" + train_inputs(dir) + " --out " + (dir / "refused").string() +
                            " --max-steps 2 ";
  expect_short_error(train + "--lr inf", "--lr");
  expect_short_error(train + "--min-lr nan", "--min-lr");
  expect_short_error(train + "--moe-bias-gamma nan", "--moe-bias-gamma");
  expect_short_error("train" + train_inputs(dir) + " --out " + (dir / "refused").string() +
                     " --max-steps -2", "--max-steps -2 must be at least 0");
  expect_short_error("train" + train_inputs(dir) + " --out " + (dir / "refused").string() +
                     " --time-limit-minutes -1", "--time-limit-minutes -1 must be a finite number");
  expect_short_error(train + "--moe-balance bias_update", "no mixture-of-experts layers");
  // γ is the rate of the bias update alone: with no experts or with the auxiliary loss it would
  // be ignored, so it is refused, naming the balancing in force.
  expect_short_error(train + "--moe-bias-gamma 0.01", "unused, the model's balancing is none (no experts)");
  const fs::path moe = dir / "moe_config.json";
  std::ofstream(moe) << R"({"model_type": "qwen3_moe", "vocab_size": 300, "hidden_size": 16,
      "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
      "num_key_value_heads": 1, "head_dim": 8, "max_position_embeddings": 32, "rms_norm_eps": 1e-5,
      "rope_theta": 10000.0, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
      "router_aux_loss_coef": 0.01})";
  const std::string moe_train = "train --config " + moe.string() + " --data " +
                                (dir / "corpus.txt").string() + " --out " +
                                (dir / "refused").string() + " --max-steps 2 ";
  expect_short_error(moe_train + "--moe-bias-gamma 0.01", "the model's balancing is aux_loss");
  expect_short_error(moe_train + "--moe-balance aux_loss --moe-bias-gamma 0.01", "is aux_loss");
  EXPECT_FALSE(fs::exists(dir / "refused" / "checkpoint"));
}

// The training loss of each "loss" record of a run's metrics.jsonl, in file order, as (step, loss).
std::vector<std::pair<int, double>> logged_losses(const fs::path& run) {
  std::vector<std::pair<int, double>> out;
  std::ifstream in(run / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("loss")) out.emplace_back(j["step"].get<int>(), j["loss"].get<double>());
  }
  return out;
}

TEST_F(CliRoughEdges, TrainPrintsTheWarmupItUses) {
  const CmdOut r = cli("train" + train_inputs(dir) + " --out " +
                       (dir / "run").string() + " --max-steps 10 --warmup-steps 4 --batch-size 2 "
                       "--seq-len 16 --eval-every 10 --eval-batches 1 --threads 1");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("warmup: 1 step (--warmup-steps 4 capped at a tenth of the 10-step schedule)"),
            std::string::npos) << r.out;
  EXPECT_NE(cli("train --help").out.find("at most a tenth of the schedule"), std::string::npos);
}

TEST_F(CliRoughEdges, ResumeTakesTheScheduleFromTheCheckpointAndLogsEachStepOnce) {
  // Every schedule flag away from its default, so a value not taken from the checkpoint shows.
  const std::string schedule = " --max-steps 8 --batch-size 2 --grad-accum 2 --seq-len 16 --lr 3e-3 "
                               "--min-lr 2e-4 --warmup-steps 2 --weight-decay 0.05 --grad-clip 0.5 --seed 7";
  // --precision f32: auto's choice is a timing (train/precision.h), and where BF16's margin is
  // near its threshold two runs of one command may choose differently; the runs compared here
  // must not depend on it (CI once saw the two runs part at step 1 by 2e-6).
  const std::string common = train_inputs(dir) + " --threads 1 --eval-every 100 --eval-batches 1 "
                             "--log-every 1 --quiet --precision f32";
  const fs::path full = dir / "resume_full", cut = dir / "resume_cut";
  ASSERT_EQ(cli("train" + common + schedule + " --out " + full.string()).rc, 0);
  // Killed at step 6 after logging steps 4 and 5 past its step-3 checkpoint.
  const CmdOut died = cli("train" + common + schedule + " --checkpoint-every 3 --test-fault die@6 --out " +
                          cut.string());
  EXPECT_NE(died.rc, 0);
  const auto before = logged_losses(cut);
  ASSERT_EQ(before.size(), 5u);
  EXPECT_EQ(before.back().first, 5);

  // An explicit value that differs from the checkpoint's is refused, naming both; nothing changes.
  const std::string resume = "train" + common + " --out " + cut.string() + " --resume " + cut.string();
  expect_short_error(resume + " --max-steps 9", "--max-steps 9 differs from the checkpoint's 8");
  expect_short_error(resume + " --seq-len 8", "--seq-len 8 differs from the checkpoint's 16");
  expect_short_error(resume + " --lr 1e-3", "--lr 0.001 differs from the checkpoint's 0.003");
  expect_short_error(resume + " --warmup-steps 3", "--warmup-steps 3 differs from the checkpoint's 2");
  expect_short_error(resume + " --seed 8", "--seed 8 differs from the checkpoint's 7");
  // batch_size x grad_accum may be split anew (other rank counts), but the global batch must stay.
  const CmdOut split = cli(resume + " --batch-size 3");  // 3 x ? cannot make the 2 x 2 trained
  EXPECT_NE(split.rc, 0);
  EXPECT_NE(split.err.find("global batch of 4 sequences"), std::string::npos) << split.err;
  EXPECT_EQ(logged_losses(cut), before);

  // The rest of the schedule comes from the checkpoint (an explicit equal value is fine).
  const CmdOut r = cli(resume + " --checkpoint-every 3 --batch-size 2");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("done: 8/8 steps"), std::string::npos) << r.out;
  const auto after = logged_losses(cut), expected = logged_losses(full);
  ASSERT_EQ(expected.size(), 8u);
  ASSERT_EQ(after.size(), 8u);  // steps 4 and 5 of the killed run are gone: each step once
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(after[k].first, (int)k + 1);
    EXPECT_NEAR(after[k].second, expected[k].second, 1e-6 * std::abs(expected[k].second)) << "step " << k + 1;
  }
  // Resuming the finished run says so (no zero figures of a session that trained nothing).
  expect_short_error(resume, "the run is already finished (step 8 of 8");
  EXPECT_EQ(logged_losses(cut), after);
}

TEST_F(CliRoughEdges, CommandLineParseErrorsReadLikeEveryOtherError) {
  const std::string fwd = "forward --model " + ckpt + " --tokens '1 2 3 4' --output " +
                          (dir / "logits.npy").string();
  for (const auto& [flag, text] : std::vector<std::pair<std::string, std::string>>{
           {" --chunks 0", "\"0\" in \"0\" is not a positive integer"},
           {" --chunks 1,,2", "--chunks: an empty item in \"1,,2\""},
           {" --chunks 2,", "empty item in \"2,\""},
           {" --chunks 2,x", "\"x\" in \"2,x\" is not a positive integer"},
           {" --chunks -3", "is not a positive integer"},
           {" --mla-decode foo", "--mla-decode: must be absorbed or expanded, got \"foo\""},
           {" --delta-chunk -1", "--delta-chunk: must be a number >= 0, got -1"},
           {" --delta-chunk nan", "--delta-chunk: must be a number >= 0, got nan"},
           {" --no-such-flag", "--no-such-flag"}}) {
    const CmdOut r = cli(fwd + flag);
    EXPECT_EQ(r.rc, 1) << flag;
    EXPECT_EQ(r.err.rfind("llm0: error: ", 0), 0u) << flag << " -> " << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << flag << " -> " << r.err;
    EXPECT_NE(r.err.find("(see `llm0 forward --help`)"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // convert's --dtype names its choices, not CLI11's internal mapping ("{bf16->2,...}").
  const CmdOut dtype = cli("convert --model " + ckpt + " --output " + (dir / "c").string() + " --dtype f8");
  EXPECT_EQ(dtype.rc, 1);
  EXPECT_NE(dtype.err.find("--dtype: f8 not in {f32,bf16,f16}"), std::string::npos) << dtype.err;
  EXPECT_EQ(dtype.err.find("->"), std::string::npos) << dtype.err;
  const CmdOut none = cli("");
  EXPECT_EQ(none.rc, 1);
  EXPECT_EQ(none.err.rfind("llm0: error: ", 0), 0u) << none.err;
  // Help is not an error: stdout, status 0; a well-formed list still runs.
  const CmdOut help = cli("forward --help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("--chunks"), std::string::npos);
  EXPECT_EQ(cli(fwd + " --chunks 3,1").rc, 0);
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

namespace {
std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

// A run directory is never replaced by accident: continuing run A into a directory B that holds
// another run (--resume A --out B) is refused like a fresh start there, and so is a failed
// --overwrite's argument (checked before the old run's metrics are touched); --overwrite with
// --resume of the run in --out itself is refused as a contradiction. With --overwrite, B takes
// A's continuation and a fresh log (the steps after A's checkpoint).
TEST_F(CliRoughEdges, TrainNeverReplacesAnotherRunWithoutOverwrite) {
  const std::string common = "train" + train_inputs(dir) + " --threads 1 --quiet --batch-size 2 "
                             "--seq-len 16 --eval-batches 1 --precision f32 --log-every 1 ";
  const fs::path a = dir / "run_a", b = dir / "run_b";
  ASSERT_EQ(cli(common + "--max-steps 4 --stop-after 2 --out " + a.string()).rc, 0);
  ASSERT_EQ(cli(common + "--max-steps 3 --out " + b.string()).rc, 0);
  const std::string b_model = file_bytes(b / "checkpoint" / "model.safetensors");
  const std::string b_metrics = file_bytes(b / "metrics.jsonl");
  ASSERT_FALSE(b_metrics.empty());
  expect_short_error("train --data " + (dir / "corpus.txt").string() + " --threads 1 --resume " +
                     a.string() + " --out " + b.string(), "holds another training run");
  expect_short_error(common + "--max-steps 3 --out " + b.string() + " --overwrite --lr 0.1 --min-lr 1",
                     "--min-lr 1 must not exceed --lr 0.1");
  EXPECT_EQ(file_bytes(b / "checkpoint" / "model.safetensors"), b_model);
  EXPECT_EQ(file_bytes(b / "metrics.jsonl"), b_metrics);
  expect_short_error("train --data " + (dir / "corpus.txt").string() + " --threads 1 --resume " +
                     a.string() + " --out " + a.string() + " --overwrite", "give one of them");
  const CmdOut moved = cli("train --data " + (dir / "corpus.txt").string() + " --threads 1 --quiet "
                           "--log-every 1 --resume " + a.string() + " --out " + b.string() +
                           " --overwrite");
  ASSERT_EQ(moved.rc, 0) << moved.err;
  EXPECT_NE(moved.out.find("done: 4/4 steps"), std::string::npos) << moved.out;
  const auto steps = logged_losses(b);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].first, 3);
  EXPECT_EQ(steps[1].first, 4);
  // A replacement that dies before its first checkpoint leaves its own log and no checkpoint of
  // the run it replaced (a resume would mix the two); the log alone still counts as a run.
  EXPECT_NE(cli(common + "--max-steps 3 --out " + b.string() + " --overwrite --test-fault die@2").rc, 0);
  EXPECT_FALSE(fs::exists(b / "checkpoint"));
  EXPECT_EQ(logged_losses(b).size(), 1u);
  expect_short_error(common + "--max-steps 3 --out " + b.string(), "already holds a training run");
}

// Each refusal names the one flag that is wrong; a --max-steps schedule with a time limit says at
// start which sets the schedule, and a clock cut or a --stop-after says so on the done line (the
// latter checked with --quiet).
TEST_F(CliRoughEdges, TrainNamesTheWrongFlagAndWhatStoppedTheRun) {
  const std::string train = "train" + train_inputs(dir) + " --threads 1 --batch-size 2 --seq-len 16 "
                            "--eval-batches 1 --precision f32 --out " + (dir / "stops").string() + " ";
  for (const auto& [flag, text] :
       {std::pair{"--warmup-steps -5", "--warmup-steps -5 must be at least 0"},
        std::pair{"--eval-every 0", "--eval-every 0 must be at least 1"},
        std::pair{"--stop-after -1", "--stop-after -1 must be at least 0"},
        std::pair{"--lr 0", "--lr 0 must be a finite number > 0"}}) {
    const CmdOut r = cli(train + "--max-steps 2 " + flag);
    EXPECT_NE(r.rc, 0) << flag;
    EXPECT_NE(r.err.find(text), std::string::npos) << flag << " -> " << r.err;
    for (const char* other : {"--lr", "--moe-bias-gamma", "--warmup-steps", "--eval-every"}) {
      if (std::string(flag).rfind(other, 0) == 0) continue;  // the flag itself
      EXPECT_EQ(r.err.find(other), std::string::npos) << flag << " -> " << r.err;
    }
  }
  const CmdOut cut = cli(train + "--max-steps 1000000 --time-limit-minutes 0.02");
  ASSERT_EQ(cut.rc, 0) << cut.err;
  EXPECT_NE(cut.out.find("schedule: 1000000 steps (--max-steps); --time-limit-minutes 0.02 stops the "
                         "run sooner"), std::string::npos) << cut.out;
  EXPECT_NE(cut.out.find("time limit 0.02 min reached at step "), std::string::npos) << cut.out;
  EXPECT_NE(cut.out.find("/1000000 steps (stopped by the time limit; --resume continues the schedule)"),
            std::string::npos) << cut.out;
  const CmdOut paused = cli(train + "--quiet --overwrite --max-steps 6 --stop-after 2");
  ASSERT_EQ(paused.rc, 0) << paused.err;
  EXPECT_NE(paused.out.find("done: 2/6 steps (stopped by --stop-after;"), std::string::npos) << paused.out;
}
