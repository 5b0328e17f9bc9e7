// Sequence: the decode state of one generated text and its step "given this step's logits row:
// sample, append, stream the text, decide whether to stop". The CLI's Generator (generator.h) and
// the server's Scheduler (serve/scheduler.h) both drive one Sequence per text; neither keeps its
// own sampler, text stream, generated ids or stop rules.
// Stopping follows HF transformers generate(): the eos token (EosTokenCriteria; the token is not
// kept unless ignore_eos, as vLLM's ignore_eos), max_new_tokens (MaxNewTokensCriteria), the
// context (MaxLengthCriteria) and stop strings (StopStringCriteria; the text ends right before
// the first one, as llama.cpp's and OpenAI's "stop"). finish_reason maps these to OpenAI's "stop"
// (eos, stop string) and "length" (max_new_tokens, context). Text streams through TextStream:
// bytes that could start a stop string are held back, and never half a UTF-8 character.
#pragma once
#include <string>
#include <vector>

#include "infer/logprobs.h"
#include "infer/sampler.h"
#include "infer/text_stream.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// Why a sequence stopped.
enum class StopReason {
  eos,             // <|endoftext|> was sampled (it is not part of the generated ids or text)
  stop_string,     // the generated text contained a stop string (text ends before it)
  max_new_tokens,  // max_new_tokens tokens were generated
  context_full,    // prompt + generated tokens filled the context
};

/// "eos", "stop_string", "max_new_tokens" or "context_full" (llm0 generate's JSON and report).
const char* stop_reason_name(StopReason r);

/// OpenAI's finish_reason: "stop" for eos and stop_string, "length" for max_new_tokens and
/// context_full.
const char* finish_reason(StopReason r);

/// Id of the token that ends a generation: the special <|endoftext|> (GPT-2 style, llm0's own
/// tokenizers), else the special </s> (SentencePiece style: Llama 2, llama2.c), else -1 (e.g. a
/// Llama 3 vocabulary).
int endoftext_id(const Tokenizer& tok);

/// Ids a new text starts from when the prompt is empty: the post_processor's prefix (e.g. <s>,
/// BOS, for Llama 2 / llama2.c) when the tokenizer has one, else {<|endoftext|>} (which training
/// puts before every document), else {} (no way to start).
std::vector<int> new_text_ids(const Tokenizer& tok);

/// How one sequence samples and when it stops. Field names follow HF GenerationConfig and the
/// OpenAI API (ignore_eos and logprobs as vLLM's SamplingParams).
struct SequenceOptions {
  int max_new_tokens = 64;         // tokens to generate at most (>= 0)
  int context = 0;                 // tokens the sequence may hold, prompt included (>= prompt)
  SamplerConfig sampler;           // temperature, top-k, top-p, min-p, penalty, seed
  std::vector<std::string> stop;   // stop strings (each non-empty)
  bool ignore_eos = false;         // <|endoftext|> (and stop_token_ids) generated like any other
  std::vector<int> stop_token_ids{};  // more ids that end the text as <|endoftext|> does (vLLM's
                                   // stop_token_ids; not kept in the text): a chat template's
                                   // end of turn
  int logprobs = -1;               // -1: none; n >= 0: each token's log-prob and the top n
};

/// What one step produced.
struct SequenceStep {
  int token = -1;          // the id appended, or -1 (eos ended the text, or it was finished)
  std::string text;        // text that became final in this step (complete UTF-8 characters)
  bool finished = false;   // a stop condition holds (Sequence::stop_reason() tells which)
  std::vector<TokenLogprob> logprobs;  // [1] for an appended token when logprobs >= 0, else []
};

/// One text being generated. Not thread-safe; the Tokenizer must outlive it. A sequence that
/// cannot take a token (max_new_tokens = 0, or a prompt that fills the context) is finished
/// at once.
class Sequence {
 public:
  /// `vocab_size`: length of a logits row (the model's vocab_size); sampling and log-probs cover
  /// ids [0, min(vocab_size, tokenizer vocab_size)). `prompt`: [P] ids. When the prompt is
  /// new_text_ids(tok), the first generated token drops the leading spaces the tokenizer's decoder
  /// strips (SentencePiece's dummy prefix, as llama2.c does after BOS).
  /// Throws llm0::Error: vocab_size <= 0, an empty prompt, a prompt longer than the context, a
  /// prompt id outside [0, vocab_size), max_new_tokens < 0, an empty stop string, logprobs < -1,
  /// invalid sampler settings (validate(SamplerConfig)).
  Sequence(const Tokenizer& tok, int vocab_size, std::vector<int> prompt, SequenceOptions options);

  /// One step from the logits row [vocab_size] (float32, raw: before penalty and temperature) of
  /// the last position of tokens(); the row is only read. Samples (HF order: penalty over
  /// tokens(), temperature, top-k, top-p, min-p; see sampler.h), then either finishes with eos
  /// or appends the token, streams its bytes and checks, in this order, stop strings,
  /// max_new_tokens and the context. The reference stays valid until the next call. A finished
  /// sequence returns {token -1, no text, finished} and reads no logits (they may be null).
  /// Throws llm0::Error if logits is null while not finished, or what Sampler::sample throws.
  const SequenceStep& step(const float* logits);

  bool finished() const { return finished_; }
  /// Why it stopped; meaningful once finished().
  StopReason stop_reason() const { return reason_; }
  /// The stop string that matched ("" unless stop_reason() == stop_string).
  const std::string& stop_string() const { return text_stream_.stop_string(); }
  /// Prompt then generated ids ([P + G]; a final eos that stopped the text is not included).
  const std::vector<int>& tokens() const { return tokens_; }
  int prompt_len() const { return prompt_len_; }
  /// G: tokens appended after the prompt.
  int generated() const { return (int)tokens_.size() - prompt_len_; }
  /// Tokens sampled so far (G, plus a final eos that ended the text).
  long sampled() const { return sampled_; }
  /// All text streamed so far: decode of the generated ids, cut before a stop string.
  const std::string& text() const { return text_; }
  const SequenceOptions& options() const { return opt_; }

 private:
  void append(int token, const float* logits);
  void finish(StopReason why);

  const Tokenizer& tok_;
  SequenceOptions opt_;
  int V_ = 0;                  // sampled vocabulary: min(model, tokenizer) vocab size
  int eos_ = -1;               // endoftext_id(tok), -1 if none
  int strip_spaces_ = 0;       // leading spaces to drop from the first generated token
  int prompt_len_ = 0;
  long sampled_ = 0;
  std::vector<int> tokens_;    // [P + G]
  std::vector<float> work_;    // [V_] the row the sampler modifies (penalty), so logits stay raw
  Sampler sampler_;
  TextStream text_stream_;     // stop strings, hold-back and UTF-8 guard of the generated bytes
  std::string text_;           // everything streamed
  SequenceStep step_;
  StopReason reason_ = StopReason::max_new_tokens;
  bool finished_ = false;
};

}  // namespace llm0
