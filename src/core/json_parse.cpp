// Parsing untrusted JSON with a nesting limit. See json_parse.h.
#include "core/json_parse.h"

namespace llm0 {

JsonDepthScan scan_json_depth(std::string_view text, int max_depth) {
  constexpr size_t kFieldBytes = 64;
  int depth = 0;
  size_t string_begin = 0;
  std::string_view last_string, field;  // the last string closed at depth 1; the last key there
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case '"': {  // skip the string; a backslash escapes the next byte
        string_begin = i + 1;
        for (++i; i < text.size() && text[i] != '"'; ++i)
          if (text[i] == '\\') ++i;
        if (depth == 1) last_string = text.substr(string_begin, std::min(i, text.size()) - string_begin);
        break;
      }
      case ':':
        if (depth == 1) field = last_string;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return {i, std::string(field.substr(0, kFieldBytes))};
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return {};
}

template <class Json>
Json parse_json(std::string_view text, std::string_view what) {
  if (const JsonDepthScan s = scan_json_depth(text); s.byte != std::string_view::npos)
    throw JsonTooDeep(format("{}: JSON nested deeper than {} levels at byte {}{}", what, kMaxJsonDepth,
                             s.byte, s.field.empty() ? "" : format(" (in field \"{}\")", s.field)),
                      s.byte, s.field);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    LLM0_FAIL("{}: not valid JSON ({})", what, json_error_text(e));
  }
}

template nlohmann::json parse_json<nlohmann::json>(std::string_view, std::string_view);
template nlohmann::ordered_json parse_json<nlohmann::ordered_json>(std::string_view, std::string_view);

std::string json_error_text(const nlohmann::json::exception& e) {
  if (const auto* p = dynamic_cast<const nlohmann::json::parse_error*>(&e))
    return "syntax error at byte " + std::to_string(p->byte);
  std::string s = e.what();  // "[json.exception.<kind>.<id>] <text>": the text only
  if (s.rfind("[json.exception.", 0) == 0) {
    const size_t end = s.find("] ");
    if (end != std::string::npos) s = s.substr(end + 2);
  }
  return s;
}

std::string text_excerpt(std::string_view s, size_t max_chars) {
  if (s.size() <= max_chars) return std::string(s);
  size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8
  return std::string(s.substr(0, cut)) + "...";
}

namespace {
template <class Json>
std::string excerpt(const Json& v, size_t max_chars) {
  // Depth is bounded by parse_json, so dump() is shallow; its length is cut here.
  return text_excerpt(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), max_chars);
}
}  // namespace

std::string json_excerpt(const nlohmann::json& v, size_t max_chars) { return excerpt(v, max_chars); }
std::string json_excerpt(const nlohmann::ordered_json& v, size_t max_chars) { return excerpt(v, max_chars); }

}  // namespace llm0
