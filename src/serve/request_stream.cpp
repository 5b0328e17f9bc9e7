// The reader/writer channel of one request (request_stream.h).
#include "serve/request_stream.h"

namespace llm0::serve {

bool RequestStream::wait(StreamUpdate& out, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto ready = [&] { return pending_.finished || !pending_.text.empty() || !pending_.logprobs.empty(); };
  cv_.wait_for(lock, timeout, ready);
  out = StreamUpdate{};
  if (!ready()) return false;
  out.text.swap(pending_.text);
  out.logprobs.swap(pending_.logprobs);
  out.finished = pending_.finished;
  out.finish_reason = pending_.finish_reason;
  out.error = pending_.error;
  out.prompt_tokens = pending_.prompt_tokens;
  out.completion_tokens = pending_.completion_tokens;
  out.cached_tokens = pending_.cached_tokens;
  return true;
}

void RequestStream::publish(std::string_view text, std::vector<TokenLogprob>* logprobs) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.text += text;
    if (logprobs)
      for (TokenLogprob& t : *logprobs) pending_.logprobs.push_back(std::move(t));
  }
  cv_.notify_all();
}

void RequestStream::finish(std::string reason, int prompt_tokens, int completion_tokens,
                           int cached_tokens, std::string error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.finished = true;
    pending_.finish_reason = std::move(reason);
    pending_.error = std::move(error);
    pending_.prompt_tokens = prompt_tokens;
    pending_.completion_tokens = completion_tokens;
    pending_.cached_tokens = cached_tokens;
  }
  cv_.notify_all();
}

}  // namespace llm0::serve
