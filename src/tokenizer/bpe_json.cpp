// vocab_id, merge_parts (see bpe_json.h).
#include "tokenizer/bpe_json.h"

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace llm0 {

int vocab_id(const std::string& key, const nlohmann::json& value, const std::string& path) {
  LLM0_CHECK(value.is_number_integer() && value.get<int64_t>() >= 0 && value.get<int64_t>() < kMaxVocabIds,
             "{}: model.vocab['{}'] is not an id in [0, {})", path, key, kMaxVocabIds);
  return static_cast<int>(value.get<int64_t>());
}

std::pair<std::string, std::string> merge_parts(const nlohmann::json& m, const std::string& path, size_t i) {
  if (m.is_string()) {
    const std::string s = m.get<std::string>();
    const size_t sp = s.find(' ');
    LLM0_CHECK(sp != std::string::npos && sp > 0 && sp + 1 < s.size() &&
                   s.find(' ', sp + 1) == std::string::npos,
               "{}: model.merges[{}] = '{}' is not \"left right\"", path, i, s);
    return {s.substr(0, sp), s.substr(sp + 1)};
  }
  LLM0_CHECK(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(),
             "{}: model.merges[{}] is neither \"left right\" nor [left, right]", path, i);
  return {m[0].get<std::string>(), m[1].get<std::string>()};
}

namespace {
void check_id(size_t id, size_t entries, const std::string& path) {
  LLM0_CHECK(id < entries, "{}: model.vocab and added_tokens must use every id 0..N-1 exactly once "
             "(id {} with only {} entries)", path, id, entries);
}
}  // namespace

void TokenTable::add_vocab(int id, std::string token, const std::string& path) {
  check_id(id, by_id.size(), path);
  LLM0_CHECK(!by_id[id].has_value(), "{}: model.vocab uses id {} twice", path, id);
  by_id[id] = std::move(token);
}

void TokenTable::add_added(int id, std::string token, const std::string& path) {
  check_id(id, by_id.size(), path);
  by_id[id] = std::move(token);
}

std::vector<std::string> TokenTable::take(const std::string& path) {
  while (!by_id.empty() && !by_id.back().has_value()) by_id.pop_back();  // ids shared by vocab and added
  std::vector<std::string> out;
  out.reserve(by_id.size());
  for (auto& t : by_id) {
    LLM0_CHECK(t.has_value(), "{}: model.vocab and added_tokens must use every id 0..N-1 exactly once "
               "(id {} is missing)", path, out.size());
    out.push_back(std::move(*t));
  }
  LLM0_CHECK(!out.empty(), "{}: model.vocab and added_tokens hold no token", path);
  by_id.clear();
  return out;
}

}  // namespace llm0
