// `mpirun -np 2 llm0 train` end to end (label mpi; LLM0_MPIEXEC with LLM0_MPIEXEC_FLAGS, binary
// LLM0_CLI): 2 ranks x batch B train like 1 process x 2B and like 1 process x B with accumulation
// 2 (losses and parameters); a 2-rank run resumed under 2 ranks continues exactly, and resumed on
// 1 process with accumulation 2 continues within 1e-5; a desynchronised rank is caught naming the
// step; a rank that dies ends the job at once, leaving the last checkpoint loadable.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/cpu_features.h"
#include "io/checkpoint.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "train/corpus.h"

using namespace llm0;
namespace fs = std::filesystem;

namespace {

std::string tmp(const std::string& name) { return test::fresh_temp_path("mpi", name); }

// 400 poems, a tiny GQA config and a tokenizer trained once (so no run trains its own).
struct Fixture {
  std::string dir = tmp("fixture"), corpus = dir + "/poems.txt", config = dir + "/config.json",
              tokenizer = dir + "/tokenizer.json";
  Fixture() {
    fs::create_directories(dir);
    std::vector<std::string> docs = fortunes_zh_documents();
    docs.resize(std::min<size_t>(docs.size(), 400));
    std::ofstream out(corpus);
    for (const std::string& d : docs) out << d << "\n\n";
    std::ofstream(config) << R"({"vocab_size": 320, "hidden_size": 40, "intermediate_size": 72,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 10,
      "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
    Tokenizer::train(docs, 320).save(tokenizer);
  }
  // Common options of every run: 5 steps of [B, 24], all metrics logged; float32 products unless
  // `precision` says otherwise (auto's choice is a timing: runs compared must not depend on it).
  std::string args(const std::string& out, const std::string& precision = "f32") const {
    return "train --config " + config + " --data " + corpus + " --tokenizer " + tokenizer +
           " --out " + out + " --seq-len 24 --max-steps 5 --lr 1e-3 --warmup-steps 1 --seed 3"
           " --log-every 1 --eval-every 5 --eval-batches 2 --threads 1 --precision " + precision;
  }
};

struct Result {
  int rc = -1;
  std::string output;
  double seconds = 0;
};

// Runs `llm0 ARGS` (ranks > 0: under mpirun -np ranks), capturing stdout and stderr together.
Result run_llm0(const std::string& args, int ranks = 0) {
  const std::string log = tmp("log.txt");
  std::string cmd = std::string(LLM0_CLI) + " " + args;
  if (ranks > 0)
    cmd = std::string(LLM0_MPIEXEC) + " " + LLM0_MPIEXEC_FLAGS + " -np " + std::to_string(ranks) +
          " " + cmd;
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system((cmd + " >" + log + " 2>&1").c_str());
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::stringstream ss;
  ss << std::ifstream(log).rdbuf();
  r.output = ss.str();
  return r;
}

std::vector<double> values(const std::map<int, double>& m, int from) {
  std::vector<double> v;
  for (const auto& [step, x] : m)
    if (step >= from) v.push_back(x);
  return v;
}

std::vector<float> parameters(const std::string& run) {
  const auto m = load_model(run + "/checkpoint");
  return std::vector<float>(m->params().data(), m->params().data() + m->params().size());
}

nlohmann::json trainer_state(const std::string& run) {
  return nlohmann::json::parse(std::ifstream(run + "/checkpoint/trainer_state.json"));
}

}  // namespace

TEST(TrainMpi, TwoRanksTrainLikeOneProcessWithTheSameGlobalBatch) {
  Fixture f;
  const std::string a = tmp("a"), wide = tmp("wide"), accum = tmp("accum");
  const Result ra = run_llm0(f.args(a) + " --batch-size 2", 2);
  ASSERT_EQ(ra.rc, 0) << ra.output;
  EXPECT_NE(ra.output.find("global batch 4 sequences (96 tokens)"), std::string::npos) << ra.output;
  ASSERT_EQ(run_llm0(f.args(wide) + " --batch-size 4").rc, 0);
  ASSERT_EQ(run_llm0(f.args(accum) + " --batch-size 2 --grad-accum 2").rc, 0);
  const auto la = values(test::step_losses(a), 1);
  ASSERT_EQ(la.size(), 5u);
  EXPECT_TRUE(test::all_close(la, values(test::step_losses(wide), 1), 1e-5, 0, "losses vs 1 process x 2B"));
  EXPECT_TRUE(test::all_close(la, values(test::step_losses(accum), 1), 1e-5, 0, "losses vs accumulation 2"));
  const std::vector<float> pa = parameters(a);
  EXPECT_TRUE(test::all_close(pa, parameters(wide), 1e-5, 1e-5, "parameters vs 1 process x 2B"));
  EXPECT_TRUE(test::all_close(pa, parameters(accum), 1e-5, 1e-5, "parameters vs accumulation 2"));
  const auto st = trainer_state(a);
  EXPECT_EQ(st["ranks"], 2);
  EXPECT_EQ(st["global_batch"], 4);
  EXPECT_EQ(st["global_batch_tokens"], 96);
  EXPECT_EQ(st["tokens_seen"].get<double>(), 5 * 96.0);
  // Rank 0 alone writes: one metrics record per step, one validation, the start and the done record, not two.
  std::ifstream in(a + "/metrics.jsonl");
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 8);
}

// BF16 products on 2 ranks, gradients all-reduced in float32 (the gradient buffers are float32):
// like one process accumulating the same two micro-batches (only the order of the float32 sums
// of the two halves differs, as in the float32 test above), and the checkpoint says bf16.
TEST(TrainMpi, Bf16TwoRanksTrainLikeOneProcessWithAccumulation) {
  if (kernel_isa() != Isa::Avx512Bf16) GTEST_SKIP() << "--precision bf16 needs AVX512_BF16";
  Fixture f;
  const std::string a = tmp("bf16_a"), accum = tmp("bf16_accum");
  const Result ra = run_llm0(f.args(a, "bf16") + " --batch-size 2", 2);
  ASSERT_EQ(ra.rc, 0) << ra.output;
  EXPECT_NE(ra.output.find("precision: bf16"), std::string::npos) << ra.output;
  ASSERT_EQ(run_llm0(f.args(accum, "bf16") + " --batch-size 2 --grad-accum 2").rc, 0);
  const auto la = values(test::step_losses(a), 1);
  ASSERT_EQ(la.size(), 5u);
  EXPECT_TRUE(test::all_close(la, values(test::step_losses(accum), 1), 1e-5, 0, "losses vs accumulation 2"));
  // Parameters: the two runs' gradients differ only in the order of float32 sums, but AdamW
  // divides each gradient by its own running RMS, so an element whose gradient is at rounding
  // level (nearly all of BF16's rounded products cancel) takes a step of up to lr whatever the
  // gradient's size: such an element may move by up to 2·lr per step apart (opposite signs),
  // 5 steps × 2 × 1e-3 = 1e-2. Every element must stay within that bound, and all but one in a
  // thousand within the float32 test's 1e-5 (rounding-level gradients are rare).
  const std::vector<float> pa = parameters(a), pb = parameters(accum);
  ASSERT_EQ(pa.size(), pb.size());
  size_t outside = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    const double d = std::fabs((double)pa[i] - pb[i]);
    EXPECT_LE(d, 5 * 2 * 1e-3) << "parameter " << i;
    outside += d > 1e-5 + 1e-5 * std::fabs((double)pb[i]);
  }
  EXPECT_LE(outside, pa.size() / 1000) << outside << " of " << pa.size() << " parameters differ by more than 1e-5";
  EXPECT_EQ(trainer_state(a)["precision"], "bf16");
}

TEST(TrainMpi, ResumeContinuesUnderTwoRanksExactlyAndOnOneProcessWithAccumulation) {
  Fixture f;
  const std::string a = tmp("whole"), b = tmp("split"), c = tmp("split_on_one");
  ASSERT_EQ(run_llm0(f.args(a) + " --batch-size 2", 2).rc, 0);
  const Result rb = run_llm0(f.args(b) + " --batch-size 2 --stop-after 2", 2);
  ASSERT_EQ(rb.rc, 0) << rb.output;
  ASSERT_EQ(trainer_state(b)["step"], 2);
  fs::copy(b, c, fs::copy_options::recursive);
  // Under 2 ranks again: the same bits as the uninterrupted run.
  const Result rr = run_llm0(f.args(b) + " --batch-size 2 --resume " + b, 2);
  ASSERT_EQ(rr.rc, 0) << rr.output;
  EXPECT_EQ(values(test::step_losses(b), 3), values(test::step_losses(a), 3));
  EXPECT_TRUE(parameters(b) == parameters(a)) << "parameters differ from the uninterrupted run";
  // On one process with accumulation 2 (the same global batch of 4): within 1e-5.
  const Result r1 = run_llm0(f.args(c) + " --batch-size 2 --grad-accum 2 --resume " + c);
  ASSERT_EQ(r1.rc, 0) << r1.output;
  EXPECT_NE(r1.output.find("as 1 ranks x batch_size 2 x grad_accum 2"), std::string::npos) << r1.output;
  const auto lc = values(test::step_losses(c), 3);
  ASSERT_EQ(lc.size(), 3u);
  EXPECT_TRUE(test::all_close(lc, values(test::step_losses(a), 3), 1e-5, 0, "losses after resume on 1 process"));
  EXPECT_TRUE(test::all_close(parameters(c), parameters(a), 1e-5, 1e-5, "parameters after resume"));
  // Another global batch cannot continue the run; the error says what would.
  const Result bad = run_llm0(f.args(c) + " --batch-size 3 --resume " + c);
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.output.find("global batch of 4 sequences"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("batch_size x grad_accum = 4"), std::string::npos) << bad.output;
}

TEST(TrainMpi, DesynchronisedRankIsCaughtNamingTheStep) {
  Fixture f;
  const std::string run = tmp("desync");
  const Result r = run_llm0(f.args(run) + " --batch-size 2 --check-sync-every 2 --test-fault desync@2", 2);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.output.find("parameters of rank(s) 1 differ from rank 0's after step 2"),
            std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(run + "/checkpoint")) << "a desynchronised state was checkpointed";
}

TEST(TrainMpi, DeadRankEndsTheJobFastAndTheLastCheckpointIsIntact) {
  Fixture f;
  const std::string run = tmp("dead");
  // Rank 1 is killed (SIGKILL) after step 3, while rank 0 waits for it in the next all-reduce.
  const Result r = run_llm0(f.args(run) + " --batch-size 2 --checkpoint-every 2 --test-fault die@3", 2);
  EXPECT_NE(r.rc, 0);
  EXPECT_LT(r.seconds, 30) << r.output;  // measured ~2 s; a hang would run into ctest's timeout
  ASSERT_EQ(trainer_state(run)["step"], 2) << r.output;
  EXPECT_NO_THROW(load_model(run + "/checkpoint"));
}
