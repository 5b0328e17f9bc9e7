// The explorer's static files, embedded into the binary at build time (tools/embed/embed_assets.cpp
// generates the table from web/explore/ and, when scripts/explore_npm_install.sh installed it,
// KaTeX's built files under vendor/katex/), so the pages work offline with no file beside the
// program. Names are paths below /explore/ ("index.html", "js/api.js", "vendor/katex/katex.min.js").
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace llm0::explore {

/// One embedded file.
struct EmbeddedAsset {
  const char* name;           ///< path below /explore/
  const unsigned char* data;  ///< its bytes
  size_t size;                ///< bytes
};

/// Defined by the generated source (sorted by name; a count of 0 when nothing was embedded).
extern const EmbeddedAsset kEmbeddedAssets[];
extern const size_t kEmbeddedAssetCount;

/// Every embedded file, sorted by name.
std::span<const EmbeddedAsset> embedded_assets();

/// The file called `name` ("" and names ending in "/" mean their index.html), or null.
const EmbeddedAsset* find_asset(std::string_view name);

/// MIME type from the name's extension (text types with charset=utf-8); application/octet-stream
/// for an unknown one.
std::string mime_type(std::string_view name);

/// KaTeX's files are embedded (vendor/katex/katex.min.js).
bool katex_embedded();

}  // namespace llm0::explore
