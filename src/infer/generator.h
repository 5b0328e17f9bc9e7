// Generator: prompt -> tokens -> prefill (chunked) -> decode one token at a time -> text.
// With the cache (DESIGN.md "Data flow"): the prompt goes through Model::forward_cached in chunks,
// then each sampled token is fed back as one new token; the last sampled token is never fed.
// Without the cache (the textbook's naive method, kept for comparison): every step resets the
// cache and runs the whole sequence (prompt + generated so far), using the last position's logits.
// Sampling, stop rules and text streaming are one Sequence (sequence.h), the same as the server's
// scheduler uses. Counters: the model's WorkCounters, reset at start().
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infer/sampler.h"
#include "infer/sequence.h"
#include "model/infer_context.h"
#include "model/model.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// Settings of one generation run.
struct GenerateOptions {
  int max_new_tokens = 64;             // tokens to sample at most (>= 0)
  SamplerConfig sampler;               // temperature, top-k, top-p, min-p, penalty, seed
  std::vector<std::string> stop;       // stop strings (non-empty); the text ends before the first
  int chunk = 0;                       // prefill chunk in tokens; 0 = whole prompt in one call
  bool use_cache = true;               // false: recompute the whole sequence every step
  int max_context = 0;                 // context in tokens; 0 = max_position_embeddings
};

/// Outcome and cost of one run. Token counts are tokens, times seconds, sizes bytes.
struct GenerateResult {
  std::vector<int> prompt_ids;     // [P] the encoded prompt
  std::vector<int> generated_ids;  // [G] sampled tokens (a final <|endoftext|> is not included)
  std::string text;                // all streamed text; == decode(generated_ids) unless a stop
                                   // string cut it (then it ends right before the stop string)
  StopReason stop_reason = StopReason::max_new_tokens;
  std::string stop_string;         // the stop string that matched (stop_reason == stop_string)
  int context = 0;                 // context limit used (tokens)
  double prefill_seconds = 0;      // wall time of the prompt's forward passes
  double decode_seconds = 0;       // wall time of every step after prefill (forward + sampling)
  double prefill_tokens_per_second = 0;  // P / prefill_seconds
  double decode_tokens_per_second = 0;   // tokens sampled after prefill / decode_seconds
  size_t kv_cache_bytes = 0;       // ModelCache::bytes_in_use() at the end
  std::vector<WorkCounters> layer_counters;  // [num_hidden_layers] work of this run
  WorkCounters total_counters;               // Σ over layers
};

/// What one decode step produced (token, text, finished; see SequenceStep).
using GenerateStep = SequenceStep;

/// Called with each piece of streamed text (never half a UTF-8 character of valid text).
using TextCallback = std::function<void(std::string_view)>;

/// Drives one sequence at a time through a Model (the one cached forward, a batch of one, with
/// this generator's InferContext). Not thread-safe; the Model and Tokenizer must outlive it, and
/// the model's weights must not change while it lives (its context's panels, copies of them,
/// would be stale: the forward throws).
/// One Generator reuses its cache, context and buffers across runs.
class Generator {
 public:
  /// Sampling covers ids [0, min(model vocab_size, tokenizer vocab_size)).
  Generator(const Model& model, const Tokenizer& tokenizer);

  /// Runs start() then next() until finished, calling on_text (if set) for each text piece.
  /// Throws what start() throws.
  GenerateResult generate(std::string_view prompt, const GenerateOptions& options,
                          const TextCallback& on_text = {});

  /// Encodes `prompt` with the special tokens its tokenizer.json's post_processor adds (e.g. <s>
  /// first), validates the options, resets the context's counters and prefills. An empty prompt
  /// starts a new text (new_text_ids); the text then drops the leading space(s) the tokenizer's
  /// decoder strips (SentencePiece's dummy prefix, as llama2.c does after BOS). Throws
  /// llm0::Error: empty prompt with no way to start a new text, chunk < 0, max_context outside
  /// [0, max_position_embeddings], and what the Sequence constructor throws (prompt longer than
  /// the context, a prompt id >= the model's vocab_size, max_new_tokens < 0, an empty stop
  /// string, invalid sampler settings).
  void start(std::string_view prompt, const GenerateOptions& options);
  /// Same with prompt ids already encoded ([P], each in [0, model vocab_size)).
  void start_ids(std::vector<int> prompt_ids, const GenerateOptions& options);

  /// One step: computes the logits if needed, then Sequence::step (sample, stream, stop). The
  /// returned reference stays valid until the next call. After `finished`, further calls return
  /// a step with token -1, no text, finished. Throws llm0::Error if start() was never called.
  const GenerateStep& next();

  /// True once a stop condition held (at once after start() when max_new_tokens is 0 or the
  /// prompt fills the context).
  bool finished() const { return seq_ && seq_->finished(); }
  /// Raw logits [V] (before the repetition penalty) that the last sampled token was drawn from.
  const std::vector<float>& last_logits() const { return logits_; }
  /// Tokens so far: prompt + generated ([P + G]); empty before start().
  const std::vector<int>& tokens() const;
  /// Result so far (complete once finished()): counters, cache bytes and rates are read now.
  GenerateResult result() const;
  /// The inference context of its runs (MLA's decode form, kernel order, counters).
  InferContext& context() { return ctx_; }

 private:
  void prefill();
  void compute_logits();

  const Model& model_;
  const Tokenizer& tok_;
  InferContext ctx_;
  GenerateOptions opt_;
  ModelCache cache_;
  std::vector<float> logits_;   // [V_model] raw logits of the last position
  std::optional<Sequence> seq_; // sampler, stop rules and text of the current run
  double prefill_seconds_ = 0, decode_seconds_ = 0;
  int cache_capacity_ = 0;
  bool need_feed_ = false;      // the last sampled token is not in the cache yet
};

}  // namespace llm0
