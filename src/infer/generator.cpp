// Generator: prefill in chunks, then one token per step with the cache, or the whole sequence per
// step without it (see generator.h). Buffers live in the Generator and are reused, so a decode
// step allocates nothing except when streamed text or the history outgrows its capacity.
#include "infer/generator.h"

#include <algorithm>
#include <chrono>

#include "core/check.h"

namespace llm0 {

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Checks everything of `o` that does not depend on the prompt; returns the context in tokens.
int check_options(const GenerateOptions& o, const ModelConfig& cfg) {
  validate(o.sampler);
  LLM0_CHECK(o.max_new_tokens >= 0, "max_new_tokens={} must be >= 0", o.max_new_tokens);
  LLM0_CHECK(o.chunk >= 0, "chunk={} must be >= 0 (0 = the whole prompt at once)", o.chunk);
  for (const std::string& s : o.stop) LLM0_CHECK(!s.empty(), "a stop string must not be empty");
  LLM0_CHECK(o.max_context >= 0 && o.max_context <= cfg.max_position_embeddings,
             "max_context={} must be in [0, max_position_embeddings={}] (0 = the model's limit)",
             o.max_context, cfg.max_position_embeddings);
  return o.max_context > 0 ? o.max_context : cfg.max_position_embeddings;
}
}  // namespace

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

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::eos: return "eos";
    case StopReason::stop_string: return "stop_string";
    case StopReason::max_new_tokens: return "max_new_tokens";
    case StopReason::context_full: return "context_full";
  }
  return "unknown";
}

Generator::Generator(Model& model, const Tokenizer& tokenizer)
    : model_(model), tok_(tokenizer), eos_(endoftext_id(tokenizer)),
      V_(std::min(model.config().vocab_size, tokenizer.vocab_size())) {
  logits_.resize((size_t)model.config().vocab_size);
  work_.resize(logits_.size());
}

GenerateResult Generator::generate(std::string_view prompt, const GenerateOptions& options,
                                   const TextCallback& on_text) {
  start(prompt, options);
  while (!finished_) {
    const GenerateStep& s = next();
    if (on_text && !s.text.empty()) on_text(s.text);
  }
  return result();
}

void Generator::start(std::string_view prompt, const GenerateOptions& options) {
  if (prompt.empty()) {  // a new document: BOS, or <|endoftext|> that training puts before each
    std::vector<int> ids = new_text_ids(tok_);
    LLM0_CHECK(!ids.empty(), "the prompt is empty and the tokenizer has neither a BOS token (post_processor) "
               "nor <|endoftext|> to start from");
    start_ids(std::move(ids), options);
    strip_spaces_ = tok_.decode_strip_start();
    return;
  }
  start_ids(tok_.encode_with_special_tokens(prompt), options);
}

void Generator::start_ids(std::vector<int> prompt_ids, const GenerateOptions& options) {
  const ModelConfig& cfg = model_.config();
  const int N = check_options(options, cfg), P = (int)prompt_ids.size();
  LLM0_CHECK(P > 0, "the prompt is empty: give at least one token");
  LLM0_CHECK(P <= N, "the prompt has {} tokens, more than the context of {} tokens", P, N);
  for (int t = 0; t < P; ++t)
    LLM0_CHECK(prompt_ids[(size_t)t] >= 0 && prompt_ids[(size_t)t] < cfg.vocab_size,
               "prompt token id {} at position {} is outside the model's vocab_size={}",
               prompt_ids[(size_t)t], t, cfg.vocab_size);
  opt_ = options;
  strip_spaces_ = 0;
  if (cache_capacity_ != N) {
    cache_ = model_.new_cache(N);
    cache_capacity_ = N;
  }
  cache_.reset();
  sampler_ = std::make_unique<Sampler>(opt_.sampler);
  text_ = TextStream(opt_.stop);
  res_ = GenerateResult{};
  res_.prompt_ids = prompt_ids;
  res_.context = N;
  history_ = std::move(prompt_ids);
  history_.reserve((size_t)std::min((long)N, (long)P + opt_.max_new_tokens));
  prompt_len_ = P, sampled_ = 0;
  started_ = true, finished_ = false, need_feed_ = false;
  step_ = GenerateStep{};
  model_.reset_counters();
  prefill();
}

void Generator::prefill() {
  const auto t0 = Clock::now();
  const int P = prompt_len_;
  const int chunk = opt_.use_cache && opt_.chunk > 0 ? opt_.chunk : P;
  for (int i = 0; i < P; i += chunk)
    model_.forward_cached(history_.data() + i, std::min(chunk, P - i), cache_, logits_.data(),
                          /*last_only=*/true);
  res_.prefill_seconds = seconds_since(t0);
}

void Generator::compute_logits() {
  if (!need_feed_) return;  // the prompt's logits from prefill are still current
  need_feed_ = false;
  if (opt_.use_cache) {
    model_.forward_cached(&history_.back(), 1, cache_, logits_.data(), /*last_only=*/true);
  } else {  // naive: forget everything and run the whole sequence again
    cache_.reset();
    model_.forward_cached(history_.data(), (int)history_.size(), cache_, logits_.data(),
                          /*last_only=*/true);
  }
}

const GenerateStep& Generator::next() {
  LLM0_CHECK(started_, "Generator::next() called before start()");
  step_.token = -1;
  step_.text.clear();
  if (finished_) {
    step_.finished = true;
    return step_;
  }
  const auto t0 = Clock::now();
  if ((int)history_.size() - prompt_len_ >= opt_.max_new_tokens) {
    finish(StopReason::max_new_tokens);
  } else if ((int)history_.size() >= cache_capacity_) {
    finish(StopReason::context_full);
  } else {
    compute_logits();
    std::copy(logits_.begin(), logits_.end(), work_.begin());
    const int token = sampler_->sample(work_.data(), V_, history_);
    ++sampled_;
    if (token == eos_)
      finish(StopReason::eos);
    else
      append_token(token);
  }
  res_.decode_seconds += seconds_since(t0);
  step_.finished = finished_;
  return step_;
}

void Generator::append_token(int token) {
  history_.push_back(token);
  step_.token = token;
  need_feed_ = true;
  const size_t before = step_.text.size();
  std::string_view bytes = tok_.token_bytes(token);
  for (; strip_spaces_ > 0 && !bytes.empty() && bytes.front() == ' '; --strip_spaces_) bytes.remove_prefix(1);
  strip_spaces_ = 0;  // the Strip decoder acts on the start of the text only
  if (text_.push(bytes, step_.text)) {
    res_.stop_string = text_.stop_string();
    res_.text.append(step_.text, before);
    finish(StopReason::stop_string);
    return;
  }
  res_.text.append(step_.text, before);
  if ((int)history_.size() - prompt_len_ >= opt_.max_new_tokens)
    finish(StopReason::max_new_tokens);
  else if ((int)history_.size() >= cache_capacity_)
    finish(StopReason::context_full);
}

void Generator::finish(StopReason why) {
  const size_t before = step_.text.size();
  text_.finish(step_.text);  // no-op after a stop string: nothing is held then
  res_.text.append(step_.text, before);
  res_.stop_reason = why;
  finished_ = true;
}

GenerateResult Generator::result() const {
  GenerateResult r = res_;
  r.generated_ids.assign(history_.begin() + prompt_len_, history_.end());
  r.prefill_tokens_per_second = r.prefill_seconds > 0 ? prompt_len_ / r.prefill_seconds : 0.0;
  r.decode_tokens_per_second = r.decode_seconds > 0 ? (double)sampled_ / r.decode_seconds : 0.0;
  r.kv_cache_bytes = cache_.bytes_in_use();
  r.layer_counters = model_.layer_counters();
  r.total_counters = model_.total_counters();
  return r;
}

}  // namespace llm0
