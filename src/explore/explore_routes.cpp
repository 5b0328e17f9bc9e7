// The endpoint table of /explore/api/ (explore_routes.h): which path takes which methods, which
// handler (explore_handlers.h) answers it, and ExploreApi::handle, which maps every refusal to its
// status and error code. Kept apart from explore_api.cpp so that the handlers, which take the
// ExploreApi, and the ExploreApi itself include downwards only.
#include "explore/explore_routes.h"

#include <atomic>
#include <new>

#include "core/cancel.h"
#include "core/json_parse.h"
#include "core/threads.h"
#include "explore/explore_api.h"
#include "explore/explore_handlers.h"

namespace llm0::explore {

using nlohmann::json;

namespace {

constexpr const char* kApi = "/explore/api/";

json route(ExploreApi& api, const ApiRequest& r, const std::string& rest) {
  const std::string allow = api_allowed_methods(r.path);
  if (allow.empty())
    throw ExploreError(404, "not_found", format("no endpoint {} (docs/explore-api.md lists them)", r.path));
  // 405 with the methods the endpoint takes (RFC 9110 §15.5.6: the Allow header lists them).
  if (!method_allowed(r.method, allow))
    throw ExploreError(405, "method_not_allowed", format("{} {} takes {} only", r.method, r.path, allow), allow);
  if (rest == "info") return QueryArgs(r.query, {}), api.info();
  if (rest == "lesson/attention") return lesson_attention(api, r);
  if (rest == "lesson/kv-cache") return lesson_kv_cache(api, r);
  if (rest == "lesson/shapes") return lesson_shapes(api, r);
  if (rest == "lesson/attention-map") return lesson_attention_map(api, r);
  if (rest == "lesson/generate-steps") return lesson_generate_steps(api, r);
  if (rest == "kv") return kv_pasted(api, r);
  if (rest == "model") return model_load(api, r);
  if (rest == "train") return r.method == "POST" ? train_start(api, r) : train_overview(api, r);
  if (rest == "train/corpus") return corpus_prepare(api, r);
  if (rest.rfind("train/", 0) == 0) {  // train/NAME[/stop|/resume]
    const std::string tail = rest.substr(6);
    const size_t slash = tail.find('/');
    const std::string name = tail.substr(0, slash), action = slash == std::string::npos ? "" : tail.substr(slash + 1);
    if (action == "stop") return train_stop(api, r, name);
    if (action == "resume") return train_resume(api, r, name);
    if (action == "events") return train_events(api, r, name);  // checked; streamed by explore_http.cpp
    return train_run(api, r, name);
  }
  return kv_reference(api, r, rest.substr(13));  // kv/reference/NAME
}

}  // namespace

std::string api_allowed_methods(const std::string& path) {
  if (path.rfind(kApi, 0) != 0) return "";
  const std::string rest = path.substr(std::string(kApi).size());
  if (rest == "kv" || rest == "model" || rest == "train/corpus") return "POST";
  if (rest == "train") return "GET, HEAD, POST";
  for (const char* get : {"info", "lesson/attention", "lesson/kv-cache", "lesson/shapes",
                          "lesson/attention-map", "lesson/generate-steps"})
    if (rest == get) return "GET, HEAD";
  if (rest.rfind("train/", 0) == 0) {  // train/NAME, train/NAME/events (GET), train/NAME/stop|resume (POST)
    const std::string tail = rest.substr(6);
    const size_t slash = tail.find('/');
    if (slash == 0) return "";
    if (slash == std::string::npos) return "GET, HEAD";
    const std::string action = tail.substr(slash + 1);
    if (action == "events") return "GET, HEAD";
    return action == "stop" || action == "resume" ? "POST" : "";
  }
  return rest.rfind("kv/reference/", 0) == 0 ? "GET, HEAD" : "";
}

bool method_allowed(const std::string& method, const std::string& allow) {
  const bool get = allow.rfind("GET", 0) == 0, post = allow.find("POST") != std::string::npos;
  return (get && (method == "GET" || method == "HEAD")) || (post && method == "POST");
}

ApiResponse ExploreApi::handle(const ApiRequest& r) {
  struct InFlight {
    std::atomic<int>& n;
    explicit InFlight(std::atomic<int>& count) : n(count) { ++n; }
    ~InFlight() { --n; }
  } in_flight(in_flight_);
  try {
    thread_local int adopted = -1;  // this thread's OpenMP setting, once per thread and count
    if (adopted != threads_) adopt_num_threads(threads_), adopted = threads_;
    if (r.path.rfind(kApi, 0) != 0)
      throw ExploreError(404, "not_found", format("no endpoint {}", r.path));
    if (r.body.size() > ExploreLimits::kBodyBytes)
      throw ExploreError(413, "too_large", format("the request body is {} bytes; at most {} are "
                         "accepted", r.body.size(), ExploreLimits::kBodyBytes));
    return {200, route(*this, r, r.path.substr(std::string(kApi).size()))};
  } catch (const ExploreError& e) {
    return {e.status, error_json(e.what(), e.code, e.data), e.allow};
  } catch (const Cancelled& e) {  // the client hung up (nobody reads this) or the server stops
    return {503, error_json(e.what(), "cancelled")};
  } catch (const Error& e) {  // the library's refusal of this input names what is wrong
    return {400, error_json(e.what(), "bad_request")};
  } catch (const json::exception& e) {
    return {400, error_json(format("malformed JSON: {}", json_error_text(e)), "bad_json")};
  } catch (const std::bad_alloc&) {
    return {400, error_json("the request needs more memory than this machine has", "bad_request")};
  } catch (const std::exception& e) {
    return {500, error_json(e.what(), "internal_error")};
  }
}

}  // namespace llm0::explore
