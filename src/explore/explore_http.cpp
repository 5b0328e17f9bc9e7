// Routes of the explorer on a cpp-httplib server (explore_http.h).
#include "explore/explore_http.h"

#include "explore/explore_assets.h"

namespace llm0::explore {

using nlohmann::json;

std::string dump_api_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

namespace {

void answer(httplib::Response& res, const ApiResponse& a) {
  res.status = a.status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(dump_api_json(a.body), "application/json");
}

void api_route(ExploreApi& api, const httplib::Request& req, httplib::Response& res) {
  ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  // From the URL only: httplib also puts a form-encoded body's fields into req.params.
  httplib::Params params;
  if (const size_t q = req.target.find('?'); q != std::string::npos)
    httplib::detail::parse_query_text(req.target.substr(q + 1), params);
  for (const auto& [k, v] : params) r.query.emplace_back(k, v);
  r.body = req.body;
  answer(res, api.handle(r));
}

void asset_route(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.matches[1];
  if (const EmbeddedAsset* a = find_asset(name)) {
    res.set_content(reinterpret_cast<const char*>(a->data), a->size, mime_type(a->name).c_str());
    return;
  }
  answer(res, {404, error_json(format("no page or file /explore/{}", name), "not_found")});
}

}  // namespace

void mount_explore(serve::ConnectionServer& http, ExploreApi& api) {
  http.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/explore/"); });
  http.Get("/explore", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/explore/"); });
  auto on_api = [&api](const httplib::Request& q, httplib::Response& r) { api_route(api, q, r); };
  http.Get(R"(/explore/api/.*)", on_api);
  http.Post(R"(/explore/api/.*)", on_api);
  http.Get(R"(/explore/(.*))", asset_route);
}

}  // namespace llm0::explore
