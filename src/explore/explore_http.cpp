// Routes of the explorer on a cpp-httplib server (explore_http.h).
#include "explore/explore_http.h"

#include <chrono>
#include <memory>
#include <thread>

#include "explore/explore_assets.h"
#include "explore/explore_handlers.h"
#include "explore/explore_routes.h"
#include "explore/train_events.h"

namespace llm0::explore {

using nlohmann::json;

std::string dump_api_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

// Answers past this size go out uncompressed: Debian's cpp-httplib (0.11) compresses a body with
// brotli at its slowest quality whenever the browser accepts br (a run's 3 MB history took 9 s
// here, 0.3 s plain), and it leaves a sized content provider alone.
constexpr size_t kCompressedAnswerBytes = 256u << 10;

void answer(httplib::Response& res, const ApiResponse& a) {
  res.status = a.status;
  res.set_header("Cache-Control", "no-store");
  if (!a.allow.empty()) res.set_header("Allow", a.allow);
  auto body = std::make_shared<const std::string>(dump_api_json(a.body));
  if (body->size() <= kCompressedAnswerBytes) return res.set_content(*body, "application/json");
  res.set_content_provider(body->size(), "application/json",
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body->data() + offset, length);
                           });
}

ApiRequest api_request(const httplib::Request& req) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  // From the URL only: httplib also puts a form-encoded body's fields into req.params.
  httplib::Params params;
  if (const size_t q = req.target.find('?'); q != std::string::npos)
    httplib::detail::parse_query_text(req.target.substr(q + 1), params);
  for (const auto& [k, v] : params) r.query.emplace_back(k, v);
  r.body = req.body;
  return r;
}

void api_route(ExploreApi& api, const httplib::Request& req, httplib::Response& res) {
  answer(res, api.handle(api_request(req)));
}

// GET /explore/api/train/NAME/events: the run's records as server-sent events (docs/explore-api.md
// "Training"). The request is checked by ExploreApi (an unknown run gets its JSON error); the
// stream then polls metrics.jsonl every 200 ms on this connection's own thread (other requests
// keep their threads), sends a comment after 15 s without an event (proxies and browsers keep
// the connection), and ends with `event: end` once the run is not training and every record went
// out, or as soon as the client is gone or the server stops.
void events_route(ExploreApi& api, serve::ConnectionServer& http, const httplib::Request& req,
                  httplib::Response& res) {
  const ApiResponse checked = api.handle(api_request(req));
  if (checked.status != 200) return answer(res, checked);
  const std::string name = checked.body["run"];
  RecordTail tail(checked.body["dir"].get<std::string>() + "/metrics.jsonl", checked.body["from"].get<size_t>());
  // One of at most kEventStreams open streams, counted from here until the response (and with it
  // the provider holding this stream) is destroyed.
  if (++api.event_streams() > ExploreLimits::kEventStreams) {
    --api.event_streams();
    return answer(res, {503, error_json(format("{} training event streams are open: close a tab that "
                                               "watches a run", ExploreLimits::kEventStreams), "too_many_streams")});
  }
  struct Stream {
    Stream(std::atomic<int>& open, RecordTail t) : open(open), tail(std::move(t)) {}
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() { --open; }
    std::atomic<int>& open;
    RecordTail tail;
    std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
  };
  auto stream = std::make_shared<Stream>(api.event_streams(), std::move(tail));
  serve::close_after_response();  // the stream is the connection's last response
  res.set_header("Cache-Control", "no-store");
  res.set_chunked_content_provider("text/event-stream", [&api, &http, name, stream](size_t, httplib::DataSink& sink) {
    using clock = std::chrono::steady_clock;
    if (http.stopping()) return false;
    const bool running = run_running(api, name);  // before the read: a record written after it is read next time
    const RecordTail::Update u = stream->tail.poll();
    std::string out = u.reset ? sse_event(nlohmann::json::object(), "reset") : "";
    for (const nlohmann::json& r : u.records) out += sse_event(r);
    if (!running && !u.reset && u.records.empty()) {
      const std::optional<int> status = api.children().exit_status({"train", name});
      out = sse_event({{"running", false}, {"exit_status", status ? nlohmann::json(*status) : nlohmann::json()}}, "end");
      if (sink.write(out.data(), out.size())) sink.done();
      return true;
    }
    if (out.empty() && clock::now() - stream->last_write >= std::chrono::seconds(15)) out = ": keep-alive\n\n";
    if (!out.empty()) {
      if (!sink.write(out.data(), out.size())) return false;  // the client is gone
      stream->last_write = clock::now();
    }
    static const char kProbe[] = ": \n\n";  // an SSE comment, written only once the client sent a FIN
    if (serve::client_gone([&] { return sink.write(kProbe, sizeof kProbe - 1); })) return false;
    if (u.records.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return true;
  });
}

void asset_route(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  if (const EmbeddedAsset* a = find_asset(name)) {
    res.set_content(reinterpret_cast<const char*>(a->data), a->size, mime_type(a->name).c_str());
    return;
  }
  answer(res, {404, error_json(format("no page or file /explore/{}", name), "not_found")});
}

// A method the pages do not take (POST, PUT, PATCH, DELETE): 405 with Allow on a page or
// redirect that exists (RFC 9110 §15.5.6), 404 on one that does not.
void page_method_route(const httplib::Request& req, httplib::Response& res) {
  if (allowed_methods(req.path).empty())
    return answer(res, {404, error_json(format("no page or file {}", req.path), "not_found")});
  answer(res, {405, error_json(format("{} {} is a page: it takes GET, HEAD only", req.method, req.path),
                               "method_not_allowed"), "GET, HEAD"});
}

}  // namespace

std::string allowed_methods(const std::string& path) {
  if (path.rfind("/explore/api/", 0) == 0) return api_allowed_methods(path);
  const std::string prefix = "/explore/";
  const bool page = path == "/" || path == "/explore" ||
                    (path.rfind(prefix, 0) == 0 && find_asset(path.substr(prefix.size())));
  return page ? "GET, HEAD" : "";
}

void mount_explore(serve::ConnectionServer& http, ExploreApi& api) {
  http.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/explore/"); });
  http.Get("/explore", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/explore/"); });
  // Before the API's catch-all route: httplib tries the patterns in the order they were added.
  http.Get(R"(/explore/api/train/([^/]+)/events)", [&api, &http](const httplib::Request& q, httplib::Response& r) {
    events_route(api, http, q, r);
  });
  auto on_api = [&api](const httplib::Request& q, httplib::Response& r) { api_route(api, q, r); };
  http.Get(R"(/explore/api/.*)", on_api);
  http.Post(R"(/explore/api/.*)", on_api);
  http.Put(R"(/explore/api/.*)", on_api);
  http.Patch(R"(/explore/api/.*)", on_api);
  http.Delete(R"(/explore/api/.*)", on_api);
  http.Get(R"(/explore/(.*))", asset_route);
  for (const char* pattern : {"/", "/explore", R"(/explore/.*)"}) {
    http.Post(pattern, page_method_route);
    http.Put(pattern, page_method_route);
    http.Patch(pattern, page_method_route);
    http.Delete(pattern, page_method_route);
  }
}

}  // namespace llm0::explore
