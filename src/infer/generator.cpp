// Generator: prefill in chunks, then one token per step with the cache, or the whole sequence per
// step without it (see generator.h); each step's logits go to the run's Sequence. The cache and
// the logits row live in the Generator and are reused across runs.
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

// Checks the options the Sequence does not (chunk, max_context); returns the context in tokens.
int check_options(const GenerateOptions& o, const ModelConfig& cfg) {
  LLM0_CHECK(o.chunk >= 0, "chunk={} must be >= 0 (0 = the whole prompt at once)", o.chunk);
  LLM0_CHECK(o.max_context >= 0 && o.max_context <= cfg.max_position_embeddings,
             "max_context={} must be in [0, max_position_embeddings={}] (0 = the model's limit)",
             o.max_context, cfg.max_position_embeddings);
  return o.max_context > 0 ? o.max_context : cfg.max_position_embeddings;
}
}  // namespace

Generator::Generator(const Model& model, const Tokenizer& tokenizer)
    : model_(model), tok_(tokenizer), ctx_(model) {
  logits_.resize((size_t)model.config().vocab_size);
}

GenerateResult Generator::generate(std::string_view prompt, const GenerateOptions& options,
                                   const TextCallback& on_text) {
  start(prompt, options);
  while (!finished()) {
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
    start_ids(std::move(ids), options);  // the Sequence drops the decoder's leading space(s)
    return;
  }
  start_ids(tok_.encode_with_special_tokens(prompt), options);
}

void Generator::start_ids(std::vector<int> prompt_ids, const GenerateOptions& options) {
  const ModelConfig& cfg = model_.config();
  SequenceOptions so;
  so.context = check_options(options, cfg);
  so.max_new_tokens = options.max_new_tokens;
  so.sampler = options.sampler;
  so.stop = options.stop;
  seq_.emplace(tok_, cfg.vocab_size, std::move(prompt_ids), std::move(so));
  opt_ = options;
  const int N = seq_->options().context;
  if (cache_capacity_ != N) {
    cache_ = model_.new_cache(N);
    cache_capacity_ = N;
  }
  cache_.reset();
  prefill_seconds_ = decode_seconds_ = 0;
  need_feed_ = false;
  ctx_.reset_counters();
  prefill();
}

void Generator::prefill() {
  const auto t0 = Clock::now();
  const std::vector<int>& ids = seq_->tokens();
  const int P = seq_->prompt_len();
  const int chunk = opt_.use_cache && opt_.chunk > 0 ? opt_.chunk : P;
  for (int i = 0; i < P; i += chunk)
    model_.forward_cached(ids.data() + i, std::min(chunk, P - i), cache_, ctx_, logits_.data(),
                          /*last_only=*/true);
  prefill_seconds_ = seconds_since(t0);
}

void Generator::compute_logits() {
  if (!need_feed_) return;  // the prompt's logits from prefill are still current
  need_feed_ = false;
  const std::vector<int>& ids = seq_->tokens();
  if (opt_.use_cache) {
    model_.forward_cached(&ids.back(), 1, cache_, ctx_, logits_.data(), /*last_only=*/true);
  } else {  // naive: forget everything and run the whole sequence again
    cache_.reset();
    model_.forward_cached(ids.data(), (int)ids.size(), cache_, ctx_, logits_.data(),
                          /*last_only=*/true);
  }
}

const GenerateStep& Generator::next() {
  LLM0_CHECK(seq_.has_value(), "Generator::next() called before start()");
  const auto t0 = Clock::now();
  const float* row = nullptr;  // a finished sequence reads no logits
  if (!seq_->finished()) {
    compute_logits();
    row = logits_.data();
  }
  const GenerateStep& step = seq_->step(row);
  need_feed_ = step.token >= 0;
  decode_seconds_ += seconds_since(t0);
  return step;
}

const std::vector<int>& Generator::tokens() const {
  static const std::vector<int> none;
  return seq_ ? seq_->tokens() : none;
}

GenerateResult Generator::result() const {
  GenerateResult r;
  if (!seq_) return r;
  const Sequence& s = *seq_;
  const int P = s.prompt_len();
  r.prompt_ids.assign(s.tokens().begin(), s.tokens().begin() + P);
  r.generated_ids.assign(s.tokens().begin() + P, s.tokens().end());
  r.text = s.text();
  r.stop_reason = s.stop_reason();
  r.stop_string = s.stop_string();
  r.context = s.options().context;
  r.prefill_seconds = prefill_seconds_;
  r.decode_seconds = decode_seconds_;
  r.prefill_tokens_per_second = prefill_seconds_ > 0 ? P / prefill_seconds_ : 0.0;
  r.decode_tokens_per_second = decode_seconds_ > 0 ? (double)s.sampled() / decode_seconds_ : 0.0;
  r.kv_cache_bytes = cache_.bytes_in_use();
  r.layer_counters = ctx_.layer_counters();
  r.total_counters = ctx_.total_counters();
  return r;
}

}  // namespace llm0
