// gguf_hf_tokenizer_json (see import_hf_json.h).
#include "io/gguf/import_hf_json.h"

#include <map>

#include "core/check.h"
#include "core/json_parse.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

constexpr const char* kKey = "tokenizer.huggingface.json";

// Records text `t` for `id` (a field of the JSON, named in errors); `overrides`: an added_tokens
// entry, which replaces model.vocab's text for its id.
void put(const GgufMeta& m, std::map<int64_t, std::string>& texts, const ordered_json& id,
         const std::string& t, const char* field, bool overrides) {
  LLM0_CHECK(id.is_number_integer() && id.get<int64_t>() >= 0, "{}: GGUF key {}: {} '{}' has id {}, "
             "not an integer >= 0", m.where, kKey, field, t, json_excerpt(id));
  const auto [it, fresh] = texts.emplace(id.get<int64_t>(), t);
  LLM0_CHECK(fresh || overrides || it->second == t, "{}: GGUF key {}: {} gives id {} to both '{}' "
             "and '{}'", m.where, kKey, field, it->first, it->second, t);
  it->second = t;
}

}  // namespace

std::optional<ordered_json> gguf_hf_tokenizer_json(const GgufMeta& m, const std::vector<std::string>& tokens) {
  const std::optional<std::string> text = m.opt_string(kKey);
  if (!text) return std::nullopt;
  ordered_json j = parse_json<ordered_json>(*text, format("{}: GGUF key {}", m.where, kKey));
  LLM0_CHECK(j.is_object() && j.contains("model") && j["model"].is_object() &&
             j["model"].contains("vocab") && j["model"]["vocab"].is_object(), "{}: GGUF key {} has "
             "no model.vocab object (not a tokenizer.json)", m.where, kKey);
  std::map<int64_t, std::string> texts;  // id -> token text
  for (const auto& [t, id] : j["model"]["vocab"].items()) put(m, texts, id, t, "model.vocab", false);
  const ordered_json added = j.value("added_tokens", ordered_json::array());
  LLM0_CHECK(added.is_array(), "{}: GGUF key {}: added_tokens is not an array", m.where, kKey);
  for (const ordered_json& a : added) {
    LLM0_CHECK(a.is_object() && a.contains("id") && a.contains("content") && a["content"].is_string(),
               "{}: GGUF key {}: an added_tokens entry lacks id or content", m.where, kKey);
    put(m, texts, a["id"], a["content"].get<std::string>(), "added_tokens", true);
  }
  const int64_t n = texts.empty() ? 0 : texts.rbegin()->first + 1;
  LLM0_CHECK(n == (int64_t)tokens.size(), "{}: GGUF key {} has {} tokens but tokenizer.ggml.tokens "
             "has {} (without its trailing UNUSED padding)", m.where, kKey, n, tokens.size());
  for (size_t id = 0; id < tokens.size(); ++id) {
    const auto it = texts.find((int64_t)id);
    LLM0_CHECK(it != texts.end() && it->second == tokens[id], "{}: GGUF key {} disagrees with "
               "tokenizer.ggml.tokens at id {}: {} vs '{}'", m.where, kKey, id,
               it == texts.end() ? std::string("no token") : "'" + it->second + "'", tokens[id]);
  }
  return j;
}

}  // namespace llm0
