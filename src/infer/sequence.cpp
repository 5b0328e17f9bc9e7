// Sequence: sample, append, stream, stop (sequence.h). A step allocates nothing except when the
// streamed text, the token list or a log-prob entry outgrows its capacity.
#include "infer/sequence.h"

#include <algorithm>

#include "core/check.h"

namespace llm0 {

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::eos: return "eos";
    case StopReason::stop_string: return "stop_string";
    case StopReason::max_new_tokens: return "max_new_tokens";
    case StopReason::context_full: return "context_full";
  }
  return "unknown";
}

const char* finish_reason(StopReason r) {
  return r == StopReason::eos || r == StopReason::stop_string ? "stop" : "length";
}

int endoftext_id(const Tokenizer& tok) {
  for (const char* name : {"<|endoftext|>", "</s>"})
    for (const auto& [text, id] : tok.special_tokens())
      if (text == name) return id;
  return -1;
}

std::vector<int> new_text_ids(const Tokenizer& tok) {
  if (!tok.prefix_ids().empty()) return tok.prefix_ids();
  for (const auto& [text, id] : tok.special_tokens())
    if (text == "<|endoftext|>") return {id};
  return {};
}

Sequence::Sequence(const Tokenizer& tok, int vocab_size, std::vector<int> prompt,
                   SequenceOptions options)
    : tok_(tok), opt_(std::move(options)), V_(std::min(vocab_size, tok.vocab_size())),
      eos_(endoftext_id(tok)), prompt_len_((int)prompt.size()), tokens_(std::move(prompt)),
      sampler_(opt_.sampler), text_stream_(opt_.stop) {
  const int P = prompt_len_, N = opt_.context;
  LLM0_CHECK(vocab_size > 0, "vocab_size={} must be > 0", vocab_size);
  LLM0_CHECK(opt_.max_new_tokens >= 0, "max_new_tokens={} must be >= 0", opt_.max_new_tokens);
  for (const std::string& s : opt_.stop) LLM0_CHECK(!s.empty(), "a stop string must not be empty");
  LLM0_CHECK(opt_.logprobs >= -1, "logprobs={} must be >= 0 (or -1 for none)", opt_.logprobs);
  LLM0_CHECK(P > 0, "the prompt is empty: give at least one token");
  LLM0_CHECK(P <= N, "the prompt has {} tokens, more than the context of {} tokens", P, N);
  for (int t = 0; t < P; ++t)
    LLM0_CHECK(tokens_[(size_t)t] >= 0 && tokens_[(size_t)t] < vocab_size,
               "prompt token id {} at position {} is outside the model's vocab_size={}",
               tokens_[(size_t)t], t, vocab_size);
  if (tokens_ == new_text_ids(tok)) strip_spaces_ = tok.decode_strip_start();
  tokens_.reserve((size_t)std::min((long)N, (long)P + opt_.max_new_tokens));
  work_.resize((size_t)V_);
  if (opt_.max_new_tokens == 0) finish(StopReason::max_new_tokens);
  else if (P >= N) finish(StopReason::context_full);
}

const SequenceStep& Sequence::step(const float* logits) {
  step_.token = -1;
  step_.text.clear();
  step_.logprobs.clear();
  if (!finished_) {
    LLM0_CHECK(logits != nullptr, "Sequence::step needs the logits row of the last position");
    std::copy_n(logits, V_, work_.begin());
    const int token = sampler_.sample(work_.data(), V_, tokens_);
    ++sampled_;
    const bool ends = token == eos_ || std::find(opt_.stop_token_ids.begin(), opt_.stop_token_ids.end(),
                                                 token) != opt_.stop_token_ids.end();
    if (ends && !opt_.ignore_eos)
      finish(StopReason::eos);
    else
      append(token, logits);
    text_ += step_.text;
  }
  step_.finished = finished_;
  return step_;
}

void Sequence::append(int token, const float* logits) {
  tokens_.push_back(token);
  step_.token = token;
  if (opt_.logprobs >= 0) step_.logprobs.push_back(token_logprob(logits, V_, token, opt_.logprobs));
  std::string_view bytes = tok_.token_bytes(token);
  for (; strip_spaces_ > 0 && !bytes.empty() && bytes.front() == ' '; --strip_spaces_)
    bytes.remove_prefix(1);
  strip_spaces_ = 0;  // the Strip decoder acts on the start of the text only
  if (text_stream_.push(bytes, step_.text))
    finish(StopReason::stop_string);
  else if (generated() >= opt_.max_new_tokens)
    finish(StopReason::max_new_tokens);
  else if ((int)tokens_.size() >= opt_.context)
    finish(StopReason::context_full);
}

void Sequence::finish(StopReason why) {
  text_stream_.finish(step_.text);  // releases what was held; no-op after a stop string
  reason_ = why;
  finished_ = true;
}

}  // namespace llm0
