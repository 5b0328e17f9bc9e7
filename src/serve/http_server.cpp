// HTTP routes of `llm0 serve` over cpp-httplib (http_server.h).
#include "serve/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
#include <chrono>
#include <ctime>

#include "core/check.h"
#include "core/json_parse.h"
#include "http/framing.h"
#include "serve/chat_template.h"
#include "serve/openai_response.h"
#include "serve/prepare_request.h"

namespace llm0::serve {

using nlohmann::json;

struct HttpServer::Impl {
  Scheduler& scheduler;
  const Model& model;
  const Tokenizer& tok;
  Metrics& metrics;
  HttpServerOptions opt;
  ServedModel served;
  ConnectionServer http;
  std::atomic<uint64_t> next_id{1};
  long long started = (long long)std::time(nullptr);

  Impl(Scheduler& s, const Model& m, const Tokenizer& t, Metrics& mt, const HttpServerOptions& o)
      : scheduler(s), model(m), tok(t), metrics(mt), opt(o),
        http(o.limits, {[&mt] { return mt.render(); }, [&mt] { mt.count(Outcome::rejected); }}) {
    served = {opt.model_id, &model.config(), &tok, opt.page_size, opt.pages_total, opt.chat_template,
              opt.chat_stop_ids};
  }

  static void send_error(httplib::Response& res, const ApiError& e) {
    res.status = e.status;
    res.set_content(dump_json(e.to_json()), "application/json");
  }
  // A reply after which the connection ends (close_after_response) says so: Connection: close —
  // unless the request said it, in which case httplib adds that header itself (once is enough).
  static void closing_reply(const httplib::Request& q, httplib::Response& r) {
    close_after_response();
    if (q.get_header_value("Connection") != "close") r.set_header("Connection", "close");
  }

  json model_card() const {
    const ModelConfig& c = model.config();
    json card = {{"id", opt.model_id}, {"object", "model"}, {"created", started}, {"owned_by", "llm0"},
                 {"max_model_len", c.max_position_embeddings}, {"vocab_size", c.vocab_size}};
    if (const chat::ChatTemplate* t = opt.chat_template) {
      std::string stops;
      for (const int id : opt.chat_stop_ids) stops += (stops.empty() ? "" : ", ") + std::to_string(id);
      card["chat_template"] = t->origin;
      card["chat_template_description"] =
          format("the model's own chat template (from its {}), rendered by llm0's Jinja subset with "
                 "add_generation_prompt; a turn ends at token ids [{}] (eos_token \"{}\")",
                 t->origin, stops, t->eos_token);
      card["chat_stop_token_ids"] = opt.chat_stop_ids;
    } else {
      card["chat_template"] = kPlainTemplateName;
      card["chat_template_description"] =
          std::string("this model has no chat template: chat messages are rendered as ") + kPlainTemplateText;
    }
    return card;
  }

  ApiError too_large() const {
    return ApiError(413, format("the request body is larger than {} bytes (llm0 serve --max-body)", opt.max_body_bytes),
                    "", "invalid_request_error", "request_too_large");
  }
  void routes();
  void completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
  void respond_whole(httplib::Response& res, std::shared_ptr<RequestStream> out, ResponseContext ctx,
                     bool logprobs);
  void respond_stream(httplib::Response& res, std::shared_ptr<RequestStream> out, ResponseContext ctx,
                      bool logprobs, bool include_usage);
};

void HttpServer::Impl::routes() {
  http.Post("/v1/completions", [this](const httplib::Request& q, httplib::Response& r) {
    completion(q, r, Endpoint::completions);
  });
  http.Post("/v1/chat/completions", [this](const httplib::Request& q, httplib::Response& r) {
    completion(q, r, Endpoint::chat_completions);
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& r) {
    r.set_content(dump_json({{"object", "list"}, {"data", json::array({model_card()})}}), "application/json");
  });
  http.Get(R"(/v1/models/(.+))", [this](const httplib::Request& q, httplib::Response& r) {
    if (q.matches[1] != opt.model_id) {
      metrics.count(Outcome::rejected);
      return send_error(r, ApiError(404, format("The model '{}' does not exist", text_excerpt(q.matches[1].str())), "model",
                                    "invalid_request_error", "model_not_found"));
    }
    r.set_content(dump_json(model_card()), "application/json");
  });
  http.Get("/health", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(R"({"status":"ok"})", "application/json");
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& r) {
    r.set_content(metrics.render(), "text/plain; version=0.0.4");
  });
  if (opt.extra_routes) opt.extra_routes(http);
  // The body's framing and size (repeated or malformed Content-Length, Transfer-Encoding, a
  // missing length, over --max-body, Expect) follow the servers' one policy (http/framing.h),
  // decided before any body byte is read; the connection ends after a refusal.
  http::install_framing(http, {{opt.max_body_bytes, "llm0 serve --max-body"}, opt.extra_body_limits},
                        [this](const httplib::Request& q, httplib::Response& r, const http::Refusal& f) {
    metrics.count(Outcome::rejected);
    closing_reply(q, r);
    // OpenAI's code for a body over the limit is request_too_large.
    send_error(r, ApiError(f.status, f.message, "", "invalid_request_error",
                           f.code == "too_large" ? "request_too_large" : f.code));
  });
  // httplib's own refusals (unknown route 404, body over the limit 413, a request it cannot parse
  // 400, a request line over its limit 414; 408 when a read of the request stalled or reached the
  // request deadline: connection_server.h) get
  // OpenAI's error object too, and count as rejected. Errors our handlers wrote are left alone.
  http.set_error_handler([this](const httplib::Request& q, httplib::Response& r) {
    if (!r.body.empty()) return;
    metrics.count(Outcome::rejected);
    closing_reply(q, r);  // the rest of the request may be unread
    if (r.status == 400 && http.stopping())  // the server stopped while the request arrived
      send_error(r, ApiError(503, kShuttingDown, "", "server_error", "shutting_down"));
    else if (const std::string late = request_timeout_message(); r.status == 400 && !late.empty())
      send_error(r, ApiError::request_timeout(late));  // a read stalled or passed the deadline
    else if (r.status == 404)
      send_error(r, ApiError(404, format("Invalid URL ({} {})", q.method, q.path), "", "invalid_request_error", "not_found"));
    else if (r.status == 413)
      send_error(r, too_large());
    else if (r.status == 414)
      send_error(r, ApiError(414, "the request line is too long", "", "invalid_request_error", "uri_too_long"));
    else if (r.status == 400)
      send_error(r, ApiError(400, "the HTTP request could not be parsed (request line, headers or body)", "",
                             "invalid_request_error", "bad_request"));
    else
      send_error(r, ApiError(r.status, format("the HTTP request was refused (status {})", r.status), "",
                             r.status >= 500 ? "server_error" : "invalid_request_error",
                             r.status >= 500 ? "internal_error" : "bad_request"));
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& r, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(r, ApiError(500, what, "", "server_error", "internal_error"));
  });
}

void HttpServer::Impl::completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
  try {
    const CompletionRequest r = parse_request(req.body, endpoint);
    ServeRequest s = prepare_request(r, served);
    const bool chat = endpoint == Endpoint::chat_completions;
    ResponseContext ctx{endpoint, (chat ? "chatcmpl-" : "cmpl-") + std::to_string(next_id++),
                        (long long)std::time(nullptr), opt.model_id, 0};
    std::shared_ptr<RequestStream> out = scheduler.submit(std::move(s));
    if (r.stream) respond_stream(res, std::move(out), ctx, r.logprobs >= 0, r.include_usage);
    else respond_whole(res, std::move(out), ctx, r.logprobs >= 0);
  } catch (const ApiError& e) {
    if (e.status != 429) metrics.count(Outcome::rejected);  // the scheduler counts its 429s
    send_error(res, e);
  } catch (const Error& e) {  // a tokenizer or library refusal of this input
    metrics.count(Outcome::rejected);
    send_error(res, ApiError(400, e.what(), "", "invalid_request_error", "invalid_value"));
  }
}

// The error a request that ended without its text gets: 503 `shutting_down`, else 500.
static ApiError end_error(const std::string& error) {
  return error == kShuttingDown ? ApiError(503, error, "", "server_error", "shutting_down")
                                : ApiError(500, error, "", "server_error", "internal_error");
}

void HttpServer::Impl::respond_whole(httplib::Response& res, std::shared_ptr<RequestStream> out,
                                     ResponseContext ctx, bool logprobs) {
  std::string text;
  std::vector<TokenLogprob> tokens;
  StreamUpdate u;
  auto checked = std::chrono::steady_clock::now();
  for (;;) {
    const bool got = out->wait(u, std::chrono::milliseconds(20));
    // Every 20 ms: is the client still there? If not, the scheduler drops the request at its
    // next step (its pages return) and nobody is answered.
    if (const auto now = std::chrono::steady_clock::now(); now - checked >= std::chrono::milliseconds(20)) {
      checked = now;
      if (client_gone(probe_interim_response)) {
        out->cancel();
        close_after_response();
        return;
      }
    }
    if (!got) continue;
    text += u.text;
    for (TokenLogprob& t : u.logprobs) tokens.push_back(std::move(t));
    if (u.finished) break;
  }
  if (!u.error.empty()) return send_error(res, end_error(u.error));
  res.set_content(dump_json(completion_json(ctx, text, tokens, logprobs, u, tok)), "application/json");
}

void HttpServer::Impl::respond_stream(httplib::Response& res, std::shared_ptr<RequestStream> out,
                                      ResponseContext ctx, bool logprobs, bool include_usage) {
  auto state = std::make_shared<ResponseContext>(ctx);
  auto first = std::make_shared<bool>(true);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, out, state, first, logprobs, include_usage](size_t, httplib::DataSink& sink) {
        StreamUpdate u;
        if (!out->wait(u, std::chrono::milliseconds(50))) {  // nothing yet: is the client there?
          static const char kPing[] = ": ping\n\n";       // an SSE comment, ignored by clients
          if (!client_gone([&] { return sink.write(kPing, sizeof(kPing) - 1); })) return true;
          out->cancel();
          return false;
        }
        std::string events;
        if (!u.error.empty()) {
          events += sse_event(end_error(u.error).to_json());
        } else if (!u.text.empty() || !u.logprobs.empty() || u.finished || *first) {
          events += sse_event(chunk_json(*state, u.text, u.logprobs, logprobs,
                                         u.finished ? u.finish_reason : "", *first, tok));
          *first = false;
          if (u.finished && include_usage) events += sse_event(usage_chunk_json(*state, u));
        }
        if (u.finished) events += "data: [DONE]\n\n";
        if (!sink.write(events.data(), events.size())) {  // the client is gone
          out->cancel();
          return false;
        }
        if (u.finished) sink.done();
        return true;
      },
      [out](bool success) {
        if (!success) out->cancel();  // the connection ended before [DONE]
      });
}

HttpServer::HttpServer(Scheduler& scheduler, const Model& model, const Tokenizer& tokenizer,
                       Metrics& metrics, const HttpServerOptions& options)
    : impl_(std::make_unique<Impl>(scheduler, model, tokenizer, metrics, options)) {
  httplib::Server& h = impl_->http;
  // SO_REUSEADDR (a restart may bind while old connections linger) but not httplib's default
  // SO_REUSEPORT, which would let a second server bind the same port silently; TCP_NODELAY on
  // the listening socket (accepted sockets inherit it on Linux): a streamed chunk goes out at once
  // instead of waiting for the ACK of the previous one (Nagle + delayed ACK).
  h.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  });
  impl_->routes();
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() { return impl_->http.bind_listener(impl_->opt.host, impl_->opt.port); }

void HttpServer::listen() { impl_->http.listen_after_bind(); }

void HttpServer::stop() { impl_->http.stop(); }

}  // namespace llm0::serve
