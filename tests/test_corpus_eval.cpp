// A model's loss on a corpus (train/corpus_eval.h, `llm0 eval`): the total against the same sum
// computed another way — the cached inference path (infer/chunked_forward.h, one token at a time)
// gives every window's logits, and the test takes -ln softmax of each target in double — on a
// random tiny model, with windows that do not divide the stream and batches that do not divide
// the windows; the counts (tokens, characters) against the tokenizer's own; `llm0 eval` printing
// the same numbers; and bad input refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "core/check.h"
#include "generator_fixtures.h"
#include "infer/chunked_forward.h"
#include "io/checkpoint.h"
#include "train/corpus.h"
#include "train/corpus_eval.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

// Documents of different lengths, multi-byte characters included.
const std::vector<std::string> kDocs = {"the cat sat on the mat.", "東京 is a city; café crème",
                                        "hello",
                                        "the dog sat on the log, 😀 and €5 back to the cat"};

struct Fixture {
  Tokenizer tok = corpus_tokenizer(true);
  std::unique_ptr<Model> model;
  Fixture() {
    model = std::make_unique<Model>(tiny_config_vocab(Heads::GQA, tok.vocab_size()));
    random_weights(*model, 11);
  }
  // The stream evaluate_corpus scores: <|endoftext|>, then each document and <|endoftext|>.
  std::vector<int> stream() const {
    std::vector<int> s = {tok.eos_id()};
    for (const std::string& d : kDocs) {
      for (int id : tok.encode(d)) s.push_back(id);
      s.push_back(tok.eos_id());
    }
    return s;
  }
  // Σ -ln softmax(logits)[target] over windows of T targets (the last one shorter), each
  // window's logits from the cached path one token at a time, the softmax in double.
  double reference_nats(int T) const {
    const std::vector<int> s = stream();
    const int V = model->config().vocab_size;
    double total = 0;
    for (size_t start = 0; start + 1 < s.size(); start += T) {
      const size_t n = std::min<size_t>(T, s.size() - 1 - start);
      const std::vector<int> window(s.begin() + start, s.begin() + start + n);
      InferContext ctx(*model);
      const std::vector<float> logits = chunked_forward(*model, ctx, window, {});  // [n, V]
      for (size_t t = 0; t < n; ++t) {
        const float* row = logits.data() + t * V;
        double m = row[0], z = 0;
        for (int v = 1; v < V; ++v) m = std::max(m, (double)row[v]);
        for (int v = 0; v < V; ++v) z += std::exp(row[v] - m);
        total += m + std::log(z) - row[s[start + t + 1]];
      }
    }
    return total;
  }
};

}  // namespace

TEST(CorpusEval, TotalEqualsTheCachedPathsCrossEntropy) {
  const Fixture f;
  const std::vector<int> s = f.stream();
  int64_t chars = 0;
  for (const std::string& d : kDocs) chars += (int64_t)utf8_char_count(d);
  ASSERT_GT(s.size(), 40u);
  // T = 7, B = 3: full batches, a batch of fewer rows, and a tail window unless 7 divides the
  // targets; T = 64 (the context) with more targets: one full window and a tail; T = 5, B = 1.
  for (const auto& [T, B] : std::vector<std::pair<int, int>>{{7, 3}, {64, 2}, {5, 1}, {13, 8}}) {
    SCOPED_TRACE("T=" + std::to_string(T) + " B=" + std::to_string(B));
    const CorpusEval r = evaluate_corpus(*f.model, f.tok, kDocs, T, B);
    EXPECT_EQ(r.tokens, (int64_t)s.size() - 1);
    EXPECT_EQ(r.documents, (int64_t)kDocs.size());
    EXPECT_EQ(r.characters, chars);
    // Float32 logits on two paths (summation orders differ): each target's -ln p agrees to ~1e-6
    // (|logits| ~ 1 here); 1e-5 per target bounds the total's difference.
    EXPECT_NEAR(r.total_nats, f.reference_nats(T), 1e-5 * (double)r.tokens);
    EXPECT_DOUBLE_EQ(r.nats_per_token(), r.total_nats / (double)r.tokens);
    EXPECT_DOUBLE_EQ(r.nats_per_character(), r.total_nats / (double)chars);
  }
  EXPECT_NE(s.size() % 7, 1u) << "pick documents whose stream leaves a tail window at T = 7";
}

TEST(CorpusEval, BadArgumentsAreRefused) {
  const Fixture f;
  auto error_of = [&](int T, int B, const std::vector<std::string>& docs) {
    try {
      evaluate_corpus(*f.model, f.tok, docs, T, B);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of(65, 2, kDocs).find("--seq-len 65 must be in [1, 64]"), std::string::npos);
  EXPECT_NE(error_of(0, 2, kDocs).find("--seq-len 0"), std::string::npos);
  EXPECT_NE(error_of(8, 0, kDocs).find("--batch-size 0"), std::string::npos);
  EXPECT_NE(error_of(8, 2, {}).find("no document"), std::string::npos);
}

TEST(CorpusEval, EvalCommandPrintsTheSameNumbers) {
  ASSERT_TRUE(fs::exists(LLM0_CLI)) << "llm0 program not built: " << LLM0_CLI;
  const Fixture f;
  const fs::path dir = fs::temp_directory_path() / ("llm0_test_eval_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "corpus");
  f.tok.save((dir / "tok.json").string());
  save_checkpoint(*f.model, (dir / "ckpt").string(), (dir / "tok.json").string());
  write_jsonl((dir / "corpus/validation.jsonl").string(), kDocs);
  write_jsonl((dir / "corpus/train.jsonl").string(), {kDocs[0]});
  const fs::path err = dir / "err.txt";

  const CmdOut r =
      run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " +
                  quote((dir / "corpus").string()) + " --seq-len 7 --batch-size 3 --json",
              err);
  ASSERT_EQ(r.rc, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const CorpusEval want = evaluate_corpus(*f.model, f.tok, kDocs, 7, 3);
  EXPECT_EQ(j["tokens"], want.tokens);
  EXPECT_EQ(j["characters"], want.characters);
  EXPECT_EQ(j["documents"], (int64_t)kDocs.size());
  // The program runs its own thread count (another lane split and BLAS order): float32 rounding.
  // Each target's -ln p then differs by ~1e-6 nats (as above) on values of a few nats, i.e. a
  // few 1e-7 relative, and so do the totals and means: 1e-6 relative bounds them.
  EXPECT_NEAR(j["total_nats"].get<double>(), want.total_nats, 1e-6 * want.total_nats);
  EXPECT_NEAR(j["nats_per_character"].get<double>(), want.nats_per_character(),
              1e-6 * want.nats_per_character());
  EXPECT_NEAR(j["nats_per_token"].get<double>(), want.nats_per_token(),
              1e-6 * want.nats_per_token());
  EXPECT_TRUE(j["step"].is_null());  // a checkpoint without trainer_state.json
  // --split train scores train.jsonl; the text form prints the same per-token loss.
  const CmdOut t = run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " +
                               quote((dir / "corpus").string()) + " --split train --seq-len 7",
                           err);
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("train.jsonl: 1 documents"), std::string::npos) << t.out;
  // --max-documents: the split's first N documents.
  const CmdOut m = run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " +
                               quote((dir / "corpus").string()) + " --max-documents 2 --json",
                           err);
  ASSERT_EQ(m.rc, 0) << m.err;
  const CorpusEval first2 = evaluate_corpus(*f.model, f.tok, {kDocs[0], kDocs[1]}, 64, 8);
  EXPECT_EQ(nlohmann::json::parse(m.out)["tokens"], first2.tokens);
  EXPECT_EQ(nlohmann::json::parse(m.out)["characters"], first2.characters);

  // Bad input: a split of a file, a directory without the split, a window past the context.
  CmdOut b = run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " +
                         quote((dir / "corpus/train.jsonl").string()) + " --split train",
                     err);
  EXPECT_EQ(b.rc, 1);
  EXPECT_NE(b.err.find("--split train cannot apply"), std::string::npos) << b.err;
  b = run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " + quote(dir.string()),
              err);
  EXPECT_EQ(b.rc, 1);
  EXPECT_NE(b.err.find((dir / "validation.jsonl").string() + "' is missing"), std::string::npos)
      << b.err;
  b = run_cli("eval --model " + quote((dir / "ckpt").string()) + " --data " +
                  quote((dir / "corpus").string()) + " --seq-len 65",
              err);
  EXPECT_EQ(b.rc, 1);
  EXPECT_NE(b.err.find("--seq-len 65 must be in [1, 64]"), std::string::npos) << b.err;
  fs::remove_all(dir);
}
