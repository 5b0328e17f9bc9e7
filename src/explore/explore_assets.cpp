// Lookup and MIME types of the embedded explorer files (explore_assets.h).
#include "explore/explore_assets.h"

#include <algorithm>
#include <cstring>

namespace llm0::explore {

std::span<const EmbeddedAsset> embedded_assets() {
  return {kEmbeddedAssets, kEmbeddedAssetCount};
}

const EmbeddedAsset* find_asset(std::string_view name) {
  std::string n(name);
  if (n.empty() || n.back() == '/') n += "index.html";
  const auto all = embedded_assets();
  const auto it = std::lower_bound(all.begin(), all.end(), n, [](const EmbeddedAsset& a, const std::string& k) {
    return std::strcmp(a.name, k.c_str()) < 0;
  });
  return it != all.end() && n == it->name ? &*it : nullptr;
}

std::string mime_type(std::string_view name) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"}, {".svg", "image/svg+xml"}, {".png", "image/png"},
      {".woff2", "font/woff2"}, {".woff", "font/woff"}, {".ttf", "font/ttf"},
      {".txt", "text/plain; charset=utf-8"}, {".md", "text/plain; charset=utf-8"}};
  const size_t dot = name.rfind('.');
  if (dot != std::string_view::npos)
    for (const auto& [ext, type] : kTypes)
      if (name.substr(dot) == ext) return type;
  return "application/octet-stream";
}

bool katex_embedded() { return find_asset("vendor/katex/katex.min.js") != nullptr; }

}  // namespace llm0::explore
