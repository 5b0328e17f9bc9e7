// RequestStream: the channel between one HTTP request's thread (which reads) and the scheduler
// thread (which writes the request's text, log-probabilities and end). Updates that arrive while the
// reader is busy are merged, so a slow client never blocks the scheduler. Thread-safe.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "infer/logprobs.h"  // TokenLogprob

namespace llm0::serve {

/// What a request produced since the last read.
struct StreamUpdate {
  std::string text;                   // text that became final (complete UTF-8 characters)
  std::vector<TokenLogprob> logprobs; // one per token sampled (when logprobs were asked for)
  bool finished = false;
  std::string finish_reason;          // "stop" or "length" once finished (or "" with error)
  std::string error;                  // non-empty: the request failed (server error / shutdown)
  int prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;  // usage, once finished
};

class RequestStream {
 public:
  /// Reader: waits up to `timeout` for output, then moves everything new into `out` (replacing
  /// it). Returns true when `out` holds text, log-probs or the end.
  bool wait(StreamUpdate& out, std::chrono::milliseconds timeout);
  /// Reader: the client is gone; the scheduler ends the sequence at its next step.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

  /// Scheduler: appends text and log-probs.
  void publish(std::string_view text, std::vector<TokenLogprob>* logprobs);
  /// Scheduler: the end (reason "stop"/"length", or an error message), with the usage numbers.
  void finish(std::string reason, int prompt_tokens, int completion_tokens, int cached_tokens,
              std::string error = {});

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  StreamUpdate pending_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace llm0::serve
