// A small real corpus, a tiny model config and the options of a short training run, shared by the
// trainer tests (test_trainer.cpp, test_train_resume.cpp).
#pragma once
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "train/corpus.h"
#include "train/trainer.h"
#include "test_util.h"

namespace llm0::testing_fixtures {

/// 400 Tang/Song poems as blank-line separated text, and a tiny GQA config, in a fresh temporary
/// directory named after `suite`.
struct TrainFixture {
  std::string dir, corpus, config;
  explicit TrainFixture(const std::string& suite)
      : dir(test::fresh_temp_path(suite, "fixture")), corpus(dir + "/poems.txt"),
        config(dir + "/config.json") {
    std::filesystem::create_directories(dir);
    std::vector<std::string> docs = fortunes_zh_documents();
    std::ofstream out(corpus);
    for (size_t i = 0; i < 400 && i < docs.size(); ++i) out << docs[i] << "\n\n";
    std::ofstream(config) << R"({"vocab_size": 384, "hidden_size": 48, "intermediate_size": 96,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 12,
      "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000.0})";
  }
};

/// 80 steps of batch 4 x 32 tokens, a validation and a checkpoint every 40, quiet, seed 7, f32.
inline TrainOptions tiny_options(const TrainFixture& f, const std::string& out) {
  TrainOptions o;
  o.config = f.config, o.data = f.corpus, o.out = out;
  o.batch_size = 4, o.seq_len = 32, o.max_steps = 80, o.lr = 1e-2, o.min_lr = 3e-4;
  o.warmup_steps = 5, o.eval_every = 40, o.eval_batches = 4, o.checkpoint_every = 40;
  o.log_every = 1, o.quiet = true, o.seed = 7;
  o.precision = "f32";  // auto's choice is a timing; the runs compared here must not depend on it
  return o;
}

/// A short finished run of `steps` steps in `run` (its checkpoint is what a test pokes at).
inline TrainOptions short_run(const TrainFixture& f, const std::string& run, int steps) {
  TrainOptions o = tiny_options(f, run);
  o.max_steps = steps;
  Trainer(o).run();
  return o;
}

}  // namespace llm0::testing_fixtures
