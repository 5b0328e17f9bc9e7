// What the model being trained writes and where it looks, at every validation (`llm0 train
// --sample-prompt`, `--attention-text`): a continuation of each prompt, sampled with one fixed draw
// (temperature 0.8, top-k 40, seed = the run's --seed) so that from one validation to the next
// only the weights change, and the attention map (infer/attention_map.h) of a sentence. Both run
// on a lane of the training model (Model::LaneOf: its weights read in place, activations and
// inference panels of its own), so training's buffers, random streams and weights are untouched
// and a run writes the same checkpoint with or without them.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "tokenizer/tokenizer.h"
#include "train/train_options.h"

namespace llm0 {

constexpr double kSampleTemperature = 0.8;
constexpr int kSampleTopK = 40;

/// Start-up checks of --sample-prompt, --sample-tokens and --attention-text before anything is
/// loaded. Throws llm0::Error naming the option: an empty prompt or text, --sample-tokens < 1, or
/// --sample-tokens given without a prompt.
void check_probe_options(const TrainOptions& o);

/// Their checks against the run's tokenizer and the model's context (max_position_embeddings).
/// Throws llm0::Error naming the option: a prompt that leaves no room in the context for a token,
/// an attention text over the map's limit (min(kAttentionMapMaxTokens, context) tokens).
void check_probe_lengths(const TrainOptions& o, const Tokenizer& tokenizer, const ModelConfig& cfg);

/// One sampled continuation.
struct ProbeSample {
  std::string prompt, text;
};

/// The continuation of each of o.sample_prompts (o.sample_tokens tokens at most, ending early at
/// <|endoftext|> or a full context) by `model`'s current weights. `model` is not changed.
std::vector<ProbeSample> sample_prompts(Model& model, const Tokenizer& tokenizer, const TrainOptions& o);

/// The samples record of metrics.jsonl: {"step", "samples": [{"prompt", "text"}], "sample_tokens",
/// "temperature", "top_k", "sample_seed"}.
nlohmann::json samples_record(int step, const std::vector<ProbeSample>& samples, const TrainOptions& o);

/// The attention record: {"step", "attention": attention_map_json(...)} of o.attention_text on
/// `model`'s current weights, the map's model named by the run directory. `model` is not changed.
nlohmann::json attention_record(int step, Model& model, const Tokenizer& tokenizer, const TrainOptions& o);

/// The terminal line of a sample: "sample PROMPT → TEXT", each newline shown as ⏎.
std::string sample_line(const ProbeSample& s);

}  // namespace llm0
