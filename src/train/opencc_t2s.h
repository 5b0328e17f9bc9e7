// Traditional -> simplified Chinese through OpenCC's C API (opencc.h: opencc_open,
// opencc_convert_utf8), with its t2s.json configuration: phrase-level conversion first
// (TSPhrases), then characters (TSCharacters), so context decides one-to-many cases (乾坤 keeps
// 乾, 乾燥 -> 干燥; 著作 keeps 著). Used for the chinese-poetry corpus (train/corpus_poetry.cpp).
#pragma once
#include <string>
#include <string_view>

namespace llm0 {

/// The t2s.json configuration of the OpenCC data this llm0 was built against (Debian's
/// libopencc-data: /usr/share/opencc/t2s.json; the path comes from pkg-config's opencc prefix).
std::string opencc_t2s_config();

/// One opened OpenCC converter (not copyable; closed on destruction). convert() is const but
/// OpenCC does not document its converters as thread-safe: give each thread its own.
class OpenccT2s {
 public:
  /// Opens the OpenCC configuration file `config` (default: opencc_t2s_config()). Throws
  /// llm0::Error naming the file when it is missing (install Debian's libopencc-data, which
  /// libopencc-dev pulls in) or when OpenCC refuses it (with OpenCC's own reason).
  explicit OpenccT2s(const std::string& config = opencc_t2s_config());
  ~OpenccT2s();
  OpenccT2s(const OpenccT2s&) = delete;
  OpenccT2s& operator=(const OpenccT2s&) = delete;

  /// `text` (UTF-8) converted; characters the configuration does not map (ASCII, punctuation,
  /// simplified text) pass through unchanged, newlines included. Throws llm0::Error when OpenCC
  /// reports a failure (e.g. invalid UTF-8 in `text`).
  std::string convert(std::string_view text) const;

 private:
  void* handle_;  // opencc_t
};

}  // namespace llm0
