// Parsing untrusted JSON (files, HTTP bodies, GGUF-embedded text) with a nesting limit: the one
// entry point every reader of JSON from outside goes through (core/json_file.h for files).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace llm0 {

/// Deepest nesting of arrays and objects accepted from any JSON llm0 reads (the outermost
/// object counts 1). Real files nest shallowly (config.json ~4, tokenizer.json ~6, a chat request
/// ~5), so 128 leaves a wide margin, while every recursive walk of a parsed value (nlohmann's
/// dump(), copy and ==, the config readers) stays a few tens of KiB deep: far inside the smallest
/// thread stack that parses (8 MiB, glibc's default for std::thread, which the HTTP servers' workers
/// use). Past it a value 10^5 deep overflowed those stacks (issue 43, F1-F5).
inline constexpr int kMaxJsonDepth = 128;

/// Thrown by parse_json when the text nests deeper than kMaxJsonDepth. An llm0::Error whose
/// message names the source, the limit and the byte offset; `field` is the top-level key whose
/// value is too deep ("" when the outermost value is an array), its raw JSON text cut to 64 bytes.
struct JsonTooDeep : Error {
  JsonTooDeep(const std::string& message, size_t byte, std::string field)
      : Error(message), byte(byte), field(std::move(field)) {}
  size_t byte;        // offset of the '[' or '{' that opens level kMaxJsonDepth + 1
  std::string field;  // top-level key under which it opens, or ""
};

/// Where `text` first opens an array or object at depth `max_depth` + 1 (its byte offset, and the
/// top-level key it is under, as in JsonTooDeep), or byte = npos when it never does. A linear scan
/// that skips string contents; text that is not JSON gives some answer, and the parser then refuses
/// it. Never recursive.
struct JsonDepthScan {
  size_t byte = std::string_view::npos;
  std::string field;
};
JsonDepthScan scan_json_depth(std::string_view text, int max_depth = kMaxJsonDepth);

/// Parses untrusted JSON `text` into `Json` (nlohmann::json or nlohmann::ordered_json), refusing
/// nesting deeper than kMaxJsonDepth before anything is built. `what` names the source in messages
/// ("model config file /x/config.json", "request body"). Throws JsonTooDeep ("{what}: JSON nested
/// deeper than 128 levels at byte N (in field "f")"), or llm0::Error "{what}: not valid JSON
/// (syntax error at byte N)" for text nlohmann's parser refuses.
template <class Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view what);

extern template nlohmann::json parse_json<nlohmann::json>(std::string_view, std::string_view);
extern template nlohmann::ordered_json parse_json<nlohmann::ordered_json>(std::string_view,
                                                                          std::string_view);

/// What a JSON parse or access error says, without nlohmann's "[json.exception...]" prefix:
/// "syntax error at byte N" for a parse error, else the library's text.
std::string json_error_text(const nlohmann::json::exception& e);

/// At most `max_chars` bytes of `s` (cut at a whole UTF-8 character, "..." appended when cut): for
/// messages that quote a string from untrusted input (a model name, a key), so their size does not
/// grow with it.
std::string text_excerpt(std::string_view s, size_t max_chars = 80);

/// At most `max_chars` of `v`'s compact JSON text, cut with "..." when longer: for messages that
/// quote a value read from untrusted JSON, so their size does not grow with the value's.
std::string json_excerpt(const nlohmann::json& v, size_t max_chars = 80);
std::string json_excerpt(const nlohmann::ordered_json& v, size_t max_chars = 80);

}  // namespace llm0
