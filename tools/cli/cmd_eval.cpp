// `llm0 eval --model RUN --data CORPUS [--split validation|train] [--seq-len T] [--batch-size B]
// [--max-documents N] [--json]`: a trained model's loss on a corpus split (train/corpus_eval.h) in
// nats per token and nats per character, e.g. a fortunes-zh run and a chinese-poetry run each on
// the other's held-out text (their tokenizers differ, so only the per-character numbers compare
// across runs).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common.h"
#include "core/check.h"
#include "infer/generator_io.h"
#include "train/corpus.h"
#include "train/corpus_eval.h"
#include "train/train_state.h"

namespace llm0::cli {
namespace {

struct EvalArgs {
  std::string model, data, split = "validation";
  // 0: the run's own (trainer_state.json), else T = the context and B = 8
  int seq_len = 0, batch_size = 0;
  int64_t max_documents = 0;  // 0: every document of the split
  bool json = false, split_given = false;
};

// The file scored: DIR/<split>.jsonl of a prepared corpus directory, or the file itself.
std::string data_file(const EvalArgs& a) {
  std::error_code ec;
  if (!std::filesystem::is_directory(a.data, ec)) {
    LLM0_CHECK(!a.split_given,
               "--split {} cannot apply: --data '{}' is a file, not a prepared corpus directory",
               a.split, a.data);
    return a.data;
  }
  const std::string path = (std::filesystem::path(a.data) / (a.split + ".jsonl")).string();
  LLM0_CHECK(
      std::filesystem::is_regular_file(path, ec),
      "'{}' is missing: --data must be a corpus directory prepared by `llm0 data` (or a file)",
      path);
  return path;
}

void run_eval(const EvalArgs& a) {
  const std::string path = data_file(a);
  std::vector<std::string> docs = read_documents(path);
  if (a.max_documents > 0 && (int64_t)docs.size() > a.max_documents) docs.resize(a.max_documents);
  GenerationModel gm = load_generation_model(a.model);
  int step = -1, T = a.seq_len, B = a.batch_size;
  if (std::filesystem::exists(std::filesystem::path(gm.dir) / "trainer_state.json")) {
    const TrainState s = read_train_state(gm.dir);
    step = s.step;
    if (T == 0) T = s.seq_len;
    if (B == 0) B = s.batch_size;
  }
  if (T == 0) T = gm.model->config().max_position_embeddings;
  if (B == 0) B = 8;
  const CorpusEval r = evaluate_corpus(*gm.model, *gm.tokenizer, docs, T, B);
  if (a.json) {
    nlohmann::json j = {{"model", gm.dir},
                        {"data", path},
                        {"documents", r.documents},
                        {"characters", r.characters},
                        {"tokens", r.tokens},
                        {"total_nats", r.total_nats},
                        {"nats_per_token", r.nats_per_token()},
                        {"perplexity", std::exp(r.nats_per_token())},
                        {"nats_per_character", r.nats_per_character()},
                        {"seq_len", r.seq_len},
                        {"batch_size", r.batch_size}};
    j["step"] = step >= 0 ? nlohmann::json(step) : nlohmann::json(nullptr);
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf(
      "model %s%s\ndata %s: %lld documents, %lld characters, %lld tokens (windows of %d, "
      "%d per forward)\n",
      gm.dir.c_str(), step >= 0 ? (" (step " + std::to_string(step) + ")").c_str() : "",
      path.c_str(), (long long)r.documents, (long long)r.characters, (long long)r.tokens, T, B);
  std::printf("loss %.4f nats/token (perplexity %.2f), %.4f nats/character\n", r.nats_per_token(),
              std::exp(r.nats_per_token()), r.nats_per_character());
}

}  // namespace

void register_eval(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "A model's loss on a corpus split, in nats per token and per character");
  cmd->add_option("--model", a->model,
                  "Checkpoint directory, or a training run whose checkpoint/ is one")
      ->required();
  cmd->add_option("--data", a->data,
                  "A corpus directory prepared by `llm0 data` (its validation.jsonl is scored), or "
                  "a .jsonl / text file")
      ->required();
  cmd->add_option("--split", a->split, "Which split of a corpus directory: validation or train")
      ->check(CLI::IsMember({"validation", "train"}))
      ->capture_default_str()
      ->each([a](const std::string&) { a->split_given = true; });
  cmd->add_option("--seq-len", a->seq_len,
                  "Tokens per window (default: the run's --seq-len, else the context)")
      ->check(positive_check());
  cmd->add_option("--batch-size", a->batch_size, "Windows per forward (default: the run's, else 8)")
      ->check(positive_check());
  cmd->add_option("--max-documents", a->max_documents,
                  "Score the split's first N documents only (a quicker estimate; default: all)")
      ->check(positive_check());
  cmd->add_flag("--json", a->json, "Print one JSON object instead of text");
  add_threads_option(cmd);
  cmd->callback([a] { run_eval(*a); });
}

}  // namespace llm0::cli
