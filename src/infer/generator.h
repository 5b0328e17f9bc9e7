// Generator: prompt -> tokens -> prefill (chunked) -> decode one token at a time -> text.
// With the cache (DESIGN.md "Data flow"): the prompt goes through Model::forward_cached in chunks,
// then each sampled token is fed back as one new token; the last sampled token is never fed.
// Without the cache (the textbook's naive method, kept for comparison): every step resets the
// cache and runs the whole sequence (prompt + generated so far), using the last position's logits.
// Text streams through Utf8Stream (never half a UTF-8 character) and is held back while it could
// still be the start of a stop string. Counters: the model's WorkCounters, reset at start().
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "infer/sampler.h"
#include "infer/text_stream.h"
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

/// Why a run stopped.
enum class StopReason {
  eos,             // <|endoftext|> was sampled (it is not part of the generated ids or text)
  stop_string,     // the generated text contained a stop string (text ends before it)
  max_new_tokens,  // max_new_tokens tokens were generated
  context_full,    // prompt + generated tokens filled the context
};

/// "eos", "stop_string", "max_new_tokens" or "context_full".
const char* stop_reason_name(StopReason r);

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

/// What one decode step produced.
struct GenerateStep {
  int token = -1;         // the sampled id, or -1 if no token was added (a stop, or <|endoftext|>)
  std::string text;       // text that became final in this step (complete UTF-8 characters)
  bool finished = false;  // a stop condition holds; result() tells which
};

/// Id of the token that ends a generation: the special <|endoftext|> (GPT-2 style, llm0's own
/// tokenizers), else the special </s> (SentencePiece style: Llama 2, llama2.c), else -1 (e.g. a
/// Llama 3 vocabulary).
int endoftext_id(const Tokenizer& tok);

/// Ids a new text starts from when the prompt is empty: the post_processor's prefix (e.g. <s>,
/// BOS, for Llama 2 / llama2.c) when the tokenizer has one, else {<|endoftext|>} (which training
/// puts before every document), else {} (no way to start).
std::vector<int> new_text_ids(const Tokenizer& tok);

/// Called with each piece of streamed text (never half a UTF-8 character of valid text).
using TextCallback = std::function<void(std::string_view)>;

/// Drives one sequence at a time through a Model. Not thread-safe; the Model and Tokenizer must
/// outlive it. One Generator reuses its cache and buffers across runs.
class Generator {
 public:
  /// Sampling covers ids [0, min(model vocab_size, tokenizer vocab_size)).
  Generator(Model& model, const Tokenizer& tokenizer);

  /// Runs start() then next() until finished, calling on_text (if set) for each text piece.
  /// Throws what start() throws.
  GenerateResult generate(std::string_view prompt, const GenerateOptions& options,
                          const TextCallback& on_text = {});

  /// Encodes `prompt` with the special tokens its tokenizer.json's post_processor adds (e.g. <s>
  /// first), validates the options, resets the model's counters and prefills. An empty prompt
  /// starts a new text (new_text_ids); the text then drops the leading space(s) the tokenizer's
  /// decoder strips (SentencePiece's dummy prefix, as llama2.c does after BOS). Throws
  /// llm0::Error: empty prompt with no way to start a new text, prompt longer than the context, a prompt id >= the model's
  /// vocab_size, max_new_tokens < 0, chunk < 0, an empty stop string, max_context outside
  /// [0, max_position_embeddings], invalid sampler settings (see validate(SamplerConfig)).
  void start(std::string_view prompt, const GenerateOptions& options);
  /// Same with prompt ids already encoded ([P], each in [0, model vocab_size)).
  void start_ids(std::vector<int> prompt_ids, const GenerateOptions& options);

  /// One step: checks the limits, computes the logits if needed, samples, streams. The returned
  /// reference stays valid until the next call. After `finished`, further calls return a step with
  /// token -1, no text, finished. Throws llm0::Error if start() was never called.
  const GenerateStep& next();

  /// True once a stop condition held.
  bool finished() const { return finished_; }
  /// Raw logits [V] (before the repetition penalty) that the last sampled token was drawn from.
  const std::vector<float>& last_logits() const { return logits_; }
  /// Tokens so far: prompt + generated ([P + G]).
  const std::vector<int>& tokens() const { return history_; }
  /// Result so far (complete once finished()): counters, cache bytes and rates are read now.
  GenerateResult result() const;

 private:
  void prefill();
  void compute_logits();
  void append_token(int token);
  void finish(StopReason why);

  Model& model_;
  const Tokenizer& tok_;
  int eos_ = -1;          // id of <|endoftext|> (or </s>), -1 if the tokenizer has none
  int strip_spaces_ = 0;  // leading spaces to drop from the first generated token
  int V_ = 0;             // sampled vocabulary: min(model, tokenizer) vocab size
  GenerateOptions opt_;
  ModelCache cache_;
  std::vector<float> logits_;   // [V_model] raw logits of the last position
  std::vector<float> work_;     // [V_model] logits the sampler modifies
  std::vector<int> history_;    // [P + G] prompt then generated ids
  std::unique_ptr<Sampler> sampler_;
  TextStream text_;             // stop strings, hold-back and UTF-8 guard of the generated bytes
  GenerateStep step_;
  GenerateResult res_;
  int prompt_len_ = 0, cache_capacity_ = 0;
  bool started_ = false, finished_ = false, need_feed_ = false;
  long sampled_ = 0;            // tokens sampled in next() (eos included)
};

}  // namespace llm0
