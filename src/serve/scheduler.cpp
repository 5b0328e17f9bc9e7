// Continuous batching over a BatchEngine on one thread (scheduler.h).
#include "serve/scheduler.h"

#include <algorithm>
#include <chrono>

#include "core/threads.h"
#include "infer/sequence.h"
#include "serve/api_error.h"

namespace llm0::serve {

using Clock = std::chrono::steady_clock;

namespace {
// The request's sampling and stop settings, moved out of it.
SequenceOptions sequence_options(ServeRequest& r, int context) {
  SequenceOptions o;
  o.max_new_tokens = r.max_tokens;
  o.context = context;
  o.sampler = r.sampler;
  o.stop = std::move(r.stop);
  o.ignore_eos = r.ignore_eos;
  o.stop_token_ids = std::move(r.stop_token_ids);
  o.logprobs = r.logprobs;
  return o;
}
}  // namespace

// One request, queued or admitted: its stream, its engine sequence and its llm0::Sequence
// (prompt, sampler, stop rules, text).
struct Scheduler::Request {
  std::shared_ptr<RequestStream> out = std::make_shared<RequestStream>();
  Clock::time_point arrival = Clock::now();
  SeqId id = -1;
  int fed = 0;                 // tokens whose K/V the engine holds (prompt first)
  int cached = 0;              // prompt tokens from the prefix cache
  int step_n = 0;              // tokens of this step's work
  Sequence seq;

  Request(ServeRequest r, const Tokenizer& tok, int vocab_size, int context)
      : seq(tok, vocab_size, std::move(r.prompt), sequence_options(r, context)) {}
  int prompt_len() const { return seq.prompt_len(); }
};

Scheduler::Scheduler(BatchEngine& engine, const Model& model, const Tokenizer& tokenizer,
                     Metrics& metrics, const SchedulerOptions& options)
    : engine_(engine), tok_(tokenizer), metrics_(metrics), opt_(options),
      vocab_model_(model.config().vocab_size), context_(model.config().max_position_embeddings) {
  logits_.resize((size_t)opt_.max_batch * (size_t)vocab_model_);
  metrics_.pages_total = engine_.pages_total();
  // OpenMP's thread count is per thread: the scheduler thread takes the constructing thread's
  // (llm0 serve --threads), not the all-cores default.
  const int threads = num_threads();
  thread_ = std::thread([this, threads] {
    set_num_threads(threads);
    loop();
  });
}

Scheduler::~Scheduler() { shutdown(); }

void Scheduler::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<RequestStream> Scheduler::submit(ServeRequest request) {
  auto req = std::make_unique<Request>(std::move(request), tok_, vocab_model_, context_);
  std::shared_ptr<RequestStream> out = req->out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) throw ApiError(503, kShuttingDown, "", "server_error", "shutting_down");
    if ((int)queue_.size() >= opt_.max_queue) drop_cancelled_queued();  // their slots are free
    if ((int)queue_.size() >= opt_.max_queue) {
      metrics_.count(Outcome::rejected);
      throw ApiError(429, format("the queue is full ({} requests wait); retry later", queue_.size()), "",
                     "rate_limit_error", "queue_full");
    }
    queue_.push_back(std::move(req));
    metrics_.queue_length = (int64_t)queue_.size();
  }
  cv_.notify_all();
  return out;
}

void Scheduler::loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (active_.empty())  // idle: sleep until a request arrives (or poll a blocked queue)
        cv_.wait_for(lock, std::chrono::milliseconds(queue_.empty() ? 1000 : 5),
                     [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
    }
    admit();
    if (!active_.empty()) run_step();
    publish_gauges();
  }
  std::deque<std::unique_ptr<Request>> queued;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued.swap(queue_);
  }
  for (auto& s : queued) {
    s->out->finish("", s->prompt_len(), 0, 0, kShuttingDown);
    metrics_.count(Outcome::error);
  }
  for (auto& s : active_) end(*s, "", kShuttingDown);
  active_.clear();
}

void Scheduler::drop_cancelled_queued() {
  std::erase_if(queue_, [&](const std::unique_ptr<Request>& s) {
    if (!s->out->cancelled()) return false;
    s->out->finish("", s->prompt_len(), 0, 0, "cancelled");
    metrics_.count(Outcome::cancelled);
    return true;
  });
  metrics_.queue_length = (int64_t)queue_.size();
}

void Scheduler::admit() {
  std::lock_guard<std::mutex> lock(mu_);
  drop_cancelled_queued();  // gone before they started, wherever they wait
  while (!queue_.empty() && (int)active_.size() < opt_.max_batch) {
    Request& s = *queue_.front();
    const int reserve = std::min(s.prompt_len() + s.seq.options().max_new_tokens, context_);
    std::optional<SeqId> id;
    try {
      id = engine_.open(s.seq.tokens(), reserve);  // the prompt: nothing is generated yet
    } catch (const std::exception& e) {
      s.out->finish("", s.prompt_len(), 0, 0, e.what());
      metrics_.count(Outcome::error);
      queue_.pop_front();
      continue;
    }
    if (!id) break;  // the pool is full: wait for pages (arrival order is kept)
    s.id = *id;
    s.fed = s.cached = engine_.length(*id);
    metrics_.prompt_tokens += (uint64_t)s.prompt_len();
    metrics_.prefix_cache_hit_tokens += (uint64_t)s.cached;
    active_.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  metrics_.queue_length = (int64_t)queue_.size();
  // The running and pages gauges at once, not after the step: a request that left the queue is
  // counted somewhere whenever /metrics is read (a client could read its first token and see
  // queue 0, running 0, pages 0 while the step that produced it was still running).
  publish_gauges();
}

void Scheduler::run_step() {
  // Cancelled sequences leave before the step; their pages return to the pool now.
  for (auto& s : active_)
    if (s->out->cancelled()) end(*s, "", "cancelled");
  std::erase_if(active_, [](const auto& s) { return s->id < 0; });
  if (active_.empty()) return;

  // Decodes first (one token each, the last sampled one), then prefill chunks in admission order
  // while the step's token budget lasts; the first prefill always gets its chunk, so prompts
  // progress even when decodes fill the budget (vLLM's chunked-prefill policy).
  std::vector<BatchEngine::Work> works;
  int budget = opt_.step_tokens;
  for (auto& s : active_) {
    s->step_n = s->fed < s->prompt_len() ? 0 : 1;
    budget -= s->step_n;
  }
  bool first_prefill = true;
  for (auto& s : active_) {
    if (s->step_n > 0) continue;
    const int n = std::min(opt_.prefill_chunk, s->prompt_len() - s->fed);
    s->step_n = first_prefill ? n : std::min(n, std::max(budget, 0));
    budget -= s->step_n;
    first_prefill = false;
  }
  for (auto& s : active_)
    if (s->step_n > 0) works.push_back({s->id, s->seq.tokens().data() + s->fed, s->step_n});
  try {
    engine_.step(works, logits_.data());
  } catch (const std::exception& e) {
    for (auto& s : active_) end(*s, "", e.what());
    active_.clear();
    return;
  }
  metrics_.steps += 1;
  metrics_.batch_size.observe((double)works.size());
  size_t row = 0;  // works[row] is the next sequence with tokens in this step
  for (auto& sp : active_) {
    Request& s = *sp;
    if (s.step_n == 0) continue;  // no budget left for its prompt this step
    const float* logits = logits_.data() + row++ * (size_t)vocab_model_;
    s.fed += s.step_n;
    if (s.fed < s.prompt_len()) continue;  // still reading its prompt
    sample(s, logits);
  }
  std::erase_if(active_, [](const auto& s) { return s->id < 0; });
}

void Scheduler::sample(Request& s, const float* logits) {
  const SequenceStep& step = s.seq.step(logits);
  if (s.seq.sampled() == 1)
    metrics_.time_to_first_token.observe(std::chrono::duration<double>(Clock::now() - s.arrival).count());
  if (step.token >= 0) metrics_.generation_tokens += 1;
  std::vector<TokenLogprob> lp = step.logprobs;  // publish moves them out
  s.out->publish(step.text, &lp);
  if (step.finished) end(s, finish_reason(s.seq.stop_reason()));
}

void Scheduler::end(Request& s, const std::string& reason, const std::string& error) {
  if (s.id >= 0) {
    try {
      engine_.close(s.id);
    } catch (const std::exception&) {  // an id the engine no longer knows: nothing to free
    }
  }
  s.id = -1;
  s.out->finish(reason, s.prompt_len(), s.seq.generated(), s.cached, error);
  if (error == "cancelled") metrics_.count(Outcome::cancelled);
  else if (!error.empty()) metrics_.count(Outcome::error);
  else metrics_.count(reason == "stop" ? Outcome::stop : Outcome::length);
}

void Scheduler::publish_gauges() {
  metrics_.running = (int64_t)active_.size();
  metrics_.pages_in_use = engine_.pages_in_use();
  metrics_.pages_cached = engine_.pages_cached();
  metrics_.kv_bytes_in_use = (int64_t)engine_.bytes_in_use();
}

}  // namespace llm0::serve
