// added_tokens_from_json (see added_tokens.h); field names and defaults from HF tokenizers
// src/tokenizer/added_vocabulary.rs (AddedToken's serde) and transformers.js's AddedToken.
#include "tokenizer/added_tokens.h"

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace llm0 {

namespace {

using nlohmann::json;

constexpr int64_t kMaxId = 1 << 24;  // refuse absurd ids before anything is sized by them

bool flag(const json& a, const char* key, bool fallback, const std::string& path, size_t i) {
  if (!a.contains(key) || a[key].is_null()) return fallback;
  LLM0_CHECK(a[key].is_boolean(), "{}: added_tokens[{}].{} is not true or false", path, i, key);
  return a[key].get<bool>();
}

}  // namespace

std::vector<AddedToken> added_tokens_from_json(const json& j, const std::string& path,
                                               bool normalizer_is_identity) {
  std::vector<AddedToken> out;
  if (!j.contains("added_tokens") || j["added_tokens"].is_null()) return out;
  const json& added = j["added_tokens"];
  LLM0_CHECK(added.is_array(), "{}: field 'added_tokens' is not an array", path);
  for (size_t i = 0; i < added.size(); ++i) {
    const json& a = added[i];
    LLM0_CHECK(a.is_object() && a.contains("id") && a["id"].is_number_integer() &&
                   a["id"].get<int64_t>() >= 0 && a["id"].get<int64_t>() < kMaxId &&
                   a.contains("content") && a["content"].is_string() && !a["content"].get<std::string>().empty(),
               "{}: added_tokens[{}] needs an integer 'id' in [0, {}) and a non-empty string 'content'",
               path, i, kMaxId);
    AddedToken t;
    t.content = a["content"].get<std::string>();
    t.id = static_cast<int>(a["id"].get<int64_t>());
    t.special = flag(a, "special", false, path, i);
    t.lstrip = flag(a, "lstrip", false, path, i);
    t.rstrip = flag(a, "rstrip", false, path, i);
    t.normalized = flag(a, "normalized", !t.special, path, i);
    LLM0_CHECK(!flag(a, "single_word", false, path, i),
               "{}: added_tokens[{}] ('{}') has single_word true, which llm0 does not implement", path, i, t.content);
    LLM0_CHECK(!t.normalized || normalizer_is_identity,
               "{}: added_tokens[{}] ('{}') has normalized true under a normalizer that changes text "
               "(matching it in the normalized text is not implemented)", path, i, t.content);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace llm0
