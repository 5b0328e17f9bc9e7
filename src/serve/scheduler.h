// Scheduler: continuous batching of requests over one BatchEngine, on one thread (vLLM's
// iteration-level scheduling; Yu et al., "Orca", OSDI 2022). Each step: admit queued requests in
// arrival order while the engine's page pool can reserve their tokens (a request that does not fit
// waits: running sequences are never evicted), drop cancelled ones (their pages return), then ONE
// engine step over the open sequences — one token for each decoding sequence, then a prefill chunk
// of at most `prefill_chunk` prompt tokens for sequences still reading their prompt, while the
// step's `step_tokens` budget lasts (so many new prompts do not stall the decodes) — and sample
// each sequence whose prompt is done through its own llm0::Sequence (sequence.h: seeded sampling,
// stop rules, UTF-8-safe text; the same step as `llm0 generate`), into the request's RequestStream.
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infer/sampler.h"
#include "serve/batch_engine.h"
#include "serve/metrics.h"
#include "serve/request_stream.h"
#include "tokenizer/tokenizer.h"

namespace llm0::serve {

/// The error of requests still queued or open when the scheduler stops.
inline constexpr char kShuttingDown[] = "the server is shutting down";

struct SchedulerOptions {
  int max_batch = 16;      // sequences open at once (>= 1)
  int max_queue = 64;      // requests waiting for admission (>= 1); more are refused (429)
  int prefill_chunk = 64;  // prompt tokens per sequence per step (>= 1)
  int step_tokens = 512;   // tokens per step: decodes first, then prefill chunks (>= 1; the
                           // oldest prefilling sequence always gets its chunk)
};

/// One admitted generation: token ids and how to sample. The server has validated it:
/// 1 <= P, P + max_tokens <= the context, ids < vocab_size, a valid SamplerConfig.
struct ServeRequest {
  std::vector<int> prompt;         // [P]
  int max_tokens = 16;             // tokens to sample at most (>= 1)
  SamplerConfig sampler;
  std::vector<std::string> stop;   // non-empty stop strings
  int logprobs = -1;               // -1 none, else top-n alternatives per token
  bool ignore_eos = false;         // <|endoftext|> is generated like any other token
  std::vector<int> stop_token_ids{};  // more ids that end the text as eos does (a chat template's
                                   // end of turn, e.g. <|eot_id|>)
};

class Scheduler {
 public:
  /// Starts the scheduler thread, with as many OpenMP / OpenBLAS threads as the calling thread
  /// has (llm0::num_threads()). `engine`, `tokenizer` and `metrics` must outlive it.
  /// Sampling covers ids [0, min(model vocab_size, tokenizer vocab_size)); the <|endoftext|>
  /// token (if the tokenizer has one) ends a sequence with finish_reason "stop"
  /// (llm0::finish_reason maps each StopReason).
  Scheduler(BatchEngine& engine, const Model& model, const Tokenizer& tokenizer, Metrics& metrics,
            const SchedulerOptions& options);
  /// Calls shutdown().
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Queues a request; the returned stream carries its output. Throws ApiError 429 when
  /// max_queue requests already wait (cancelled ones do not count: they leave the queue at once),
  /// 503 once the server is stopping.
  std::shared_ptr<RequestStream> submit(ServeRequest request);
  /// Stops the thread (idempotent): requests still queued or open end with the error "the server
  /// is shutting down" (their readers return), later submits get 503.
  void shutdown();

 private:
  struct Request;
  void loop();
  void admit();
  /// Ends the queued requests whose client left (cancelled), so their queue slots are free at
  /// once rather than when they reach the front. Call with mu_ held.
  void drop_cancelled_queued();
  void run_step();
  void sample(Request& s, const float* logits);
  void end(Request& s, const std::string& reason, const std::string& error = {});
  void publish_gauges();

  BatchEngine& engine_;
  const Tokenizer& tok_;
  Metrics& metrics_;
  SchedulerOptions opt_;
  int vocab_model_ = 0, context_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Request>> queue_;    // guarded by mu_
  bool stopping_ = false;                         // guarded by mu_
  std::vector<std::unique_ptr<Request>> active_;  // scheduler thread only
  std::vector<float> logits_;                     // [max_batch, vocab_model]
  std::thread thread_;
};

}  // namespace llm0::serve
