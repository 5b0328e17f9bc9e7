// The explorer over HTTP (cpp-httplib, through src/serve's ConnectionServer): the embedded pages
// at /explore/... and the API at /explore/api/... (ExploreApi); used by `llm0 explore` (its own
// server, explore_server.h) and mounted by `llm0 serve` next to the OpenAI routes.
#pragma once
#include "serve/connection_server.h"

#include <string>

#include "explore/explore_api.h"

namespace llm0::explore {

/// JSON text of an API answer (invalid UTF-8 written as U+FFFD, never a throw).
std::string dump_api_json(const nlohmann::json& j);

/// The methods `path` takes (the Allow header's value): "GET, HEAD" for a page, a redirect or a GET
/// endpoint, "POST" for /explore/api/kv; "" when there is no such page or endpoint.
std::string allowed_methods(const std::string& path);

/// Adds GET / (a redirect to /explore/), GET /explore (redirect), GET /explore/NAME (an embedded
/// file with its MIME type; 404 error object for an unknown name), GET|POST /explore/api/...
/// (ExploreApi::handle), and GET /explore/api/train/NAME/events (a run's records as server-sent
/// events) to `http`. `api` must outlive the server.
void mount_explore(serve::ConnectionServer& http, ExploreApi& api);

}  // namespace llm0::explore
