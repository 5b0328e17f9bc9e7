// HttpServer: the OpenAI-compatible HTTP front of `llm0 serve` (cpp-httplib). Routes:
//   POST /v1/completions, POST /v1/chat/completions  (stream: true -> server-sent events ending in
//                                                     "data: [DONE]")
//   GET /v1/models, GET /v1/models/{id}               (the model card)
//   GET /health                                       ({"status": "ok"})
//   GET /metrics                                      (Prometheus text, metrics.h)
//   whatever HttpServerOptions::extra_routes adds      (`llm0 serve` mounts the explorer, /explore/)
// Every error is OpenAI's error object (api_error.h): 400 malformed JSON or fields (or an HTTP
// request that cannot be parsed), 404 unknown model or route, 408 a request not received within
// the request timeout, 411 a chunked body, 413 a body over max_body_bytes, 417 an unknown Expect
// (the body-framing refusals: http/framing.h, the policy explore follows too), 429 queue full, 500 an
// internal failure, 503 shutting down or every connection slot taken. Connections are served by a
// ConnectionServer (connection_server.h: connection cap, request deadline, keep-alive); a request
// whose client is gone — streamed or not — is cancelled at the scheduler's next step.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http/framing.h"
#include "model/model.h"
#include "serve/connection_server.h"
#include "serve/metrics.h"
#include "serve/scheduler.h"
#include "chat/chat_template.h"
#include "tokenizer/tokenizer.h"

namespace llm0::serve {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                      // 0 = any free port (bind() returns it)
  std::string model_id;                 // the name requests give as "model"
  size_t max_body_bytes = 4u << 20;     // larger bodies are refused with 413
  ConnectionLimits limits;              // connection cap, request deadline, timeouts
  int page_size = 16;                   // of the engine's pool (for the model card / refusals)
  int pages_total = 0;
  const chat::ChatTemplate* chat_template = nullptr;  // the model's own (outlives the server); null:
                                                      // chats use llm0's plain template
  std::vector<int> chat_stop_ids{};     // ids that end a chat turn (chat_stop_token_ids)
  std::function<void(ConnectionServer&)> extra_routes;  // more routes (e.g. the explorer's /explore/)
  // Body limits of those routes by path prefix, in place of max_body_bytes (e.g. the explorer's
  // own limit on /explore/, so it refuses the same bodies in serve as alone).
  std::vector<std::pair<std::string, http::BodyLimit>> extra_body_limits;
};

class HttpServer {
 public:
  /// `scheduler`, `model`, `tokenizer` and `metrics` must outlive the server.
  HttpServer(Scheduler& scheduler, const Model& model, const Tokenizer& tokenizer, Metrics& metrics,
             const HttpServerOptions& options);
  ~HttpServer();
  /// Binds host:port; returns the port. Throws llm0::Error naming host and port on failure.
  int bind();
  /// Serves until stop(). Call after bind().
  void listen();
  /// Makes listen() return (callable from another thread).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm0::serve
