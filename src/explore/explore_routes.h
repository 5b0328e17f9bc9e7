// Which methods each endpoint of /explore/api/ takes (docs/explore-api.md lists the endpoints);
// the HTTP layer asks before it reads a body, ExploreApi::handle (explore_routes.cpp) before it
// dispatches.
#pragma once
#include <string>

namespace llm0::explore {

/// The methods API path `path` (/explore/api/...) takes: "GET, HEAD", "POST" or "GET, HEAD, POST"
/// (the Allow header's value), or "" for no such endpoint. The HTTP server checks it before
/// reading any body.
std::string api_allowed_methods(const std::string& path);
/// Whether `method` is one of `allow` (a value of api_allowed_methods, or "GET, HEAD" for pages).
bool method_allowed(const std::string& method, const std::string& allow);

}  // namespace llm0::explore
