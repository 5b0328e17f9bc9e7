// sentencepiece_tokenizer_json (see sentencepiece_json.h). The JSON layout is Hugging Face's for
// Llama 2 (transformers convert_slow_tokenizer.py LlamaConverter).
#include "io/sentencepiece_json.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/check.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

const std::string kSpace = "\xE2\x96\x81";  // U+2581 "▁"

// Byte offsets of the character boundaries inside `s` (valid UTF-8), excluding 0 and size.
std::vector<size_t> inner_boundaries(const std::string& s) {
  std::vector<size_t> cuts;
  char32_t cp = 0;
  for (size_t pos = 0; pos < s.size();) {
    pos += std::max(1, utf8_decode(s, pos, cp));
    if (pos < s.size()) cuts.push_back(pos);
  }
  return cuts;
}

ordered_json added_token(int id, const std::string& content) {
  return {{"id", id}, {"content", content}, {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

ordered_json bos_template(const std::string& bos, int bos_id) {
  return {{"type", "TemplateProcessing"},
          {"single", {{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
          {"pair", {{{"SpecialToken", {{"id", bos}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                    {{"SpecialToken", {{"id", bos}, {"type_id", 1}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
          {"special_tokens", {{bos, {{"id", bos}, {"ids", {bos_id}}, {"tokens", {bos}}}}}}};
}

// normalizer, pre_tokenizer, post_processor and decoder, as LlamaConverter writes them.
void add_text_rules(ordered_json& j, const std::string& bos, int bos_id, bool add_bos) {
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {
      {{"type", "Prepend"}, {"prepend", kSpace}},
      {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSpace}}}}};
  j["pre_tokenizer"] = nullptr;
  j["post_processor"] = add_bos ? bos_template(bos, bos_id) : ordered_json(nullptr);
  j["decoder"] = {{"type", "Sequence"}, {"decoders", {
      {{"type", "Replace"}, {"pattern", {{"String", kSpace}}}, {"content", " "}},
      {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
      {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
}

// Checks every piece; returns the id of the Unknown token.
int check_pieces(const std::vector<SpToken>& tokens, const std::string& where) {
  int unk = -1;
  std::map<std::string, int> seen;
  for (int id = 0; id < (int)tokens.size(); ++id) {
    const SpToken& t = tokens[(size_t)id];
    LLM0_CHECK(!t.piece.empty() && utf8_valid(t.piece), "{}: token {} is empty or not valid UTF-8",
               where, id);
    const auto [it, fresh] = seen.emplace(t.piece, id);
    LLM0_CHECK(fresh, "{}: tokens {} and {} are both '{}'", where, it->second, id, t.piece);
    LLM0_CHECK(t.type != SpTokenType::UserDefined, "{}: token {} '{}' is USER_DEFINED, which is not "
               "supported (only normal, unknown, control, unused and byte tokens)", where, id, t.piece);
    if (t.type == SpTokenType::Byte) {
      int b = -1;
      char tail = 0;
      const bool hex = t.piece.size() == 6 && std::sscanf(t.piece.c_str(), "<0x%2X%c", (unsigned*)&b, &tail) == 2;
      LLM0_CHECK(hex && tail == '>' && t.piece == sentencepiece_byte_piece(b), "{}: byte token {} is "
                 "'{}', not <0xXX>", where, id, t.piece);
    }
    if (t.type != SpTokenType::Unknown) continue;
    LLM0_CHECK(unk < 0, "{}: tokens {} and {} are both of type UNKNOWN", where, unk, id);
    unk = id;
  }
  LLM0_CHECK(unk >= 0, "{}: no token has type UNKNOWN (the <unk> byte fallback needs one)", where);
  return unk;
}

}  // namespace

std::string sentencepiece_byte_piece(int b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b & 0xFF);
  return buf;
}

ordered_json sentencepiece_tokenizer_json(const std::vector<SpToken>& tokens, int bos_id,
                                          bool add_bos, const std::string& where) {
  const int V = static_cast<int>(tokens.size());
  const int unk = check_pieces(tokens, where);
  LLM0_CHECK(!add_bos || (bos_id >= 0 && bos_id < V && tokens[(size_t)bos_id].type == SpTokenType::Control),
             "{}: BOS id {} is not a CONTROL token, so it cannot be added before the text", where, bos_id);
  std::map<std::string, int> normal;  // Normal pieces -> id: the only ones merges join
  for (int id = 0; id < V; ++id)
    if (tokens[(size_t)id].type == SpTokenType::Normal) normal.emplace(tokens[(size_t)id].piece, id);
  // (-score of the merged piece, its id, left id, right id) -> the merge's rank
  std::vector<std::tuple<float, int, int, int>> merges;
  for (const auto& [piece, id] : normal)
    for (size_t cut : inner_boundaries(piece)) {
      const auto l = normal.find(piece.substr(0, cut)), r = normal.find(piece.substr(cut));
      if (l != normal.end() && r != normal.end())
        merges.emplace_back(-tokens[(size_t)id].score, id, l->second, r->second);
    }
  std::sort(merges.begin(), merges.end());
  ordered_json vocab = ordered_json::object(), merge_list = ordered_json::array();
  ordered_json added = ordered_json::array();
  for (int id = 0; id < V; ++id) {
    const SpToken& t = tokens[(size_t)id];
    vocab[t.piece] = id;
    if (t.type == SpTokenType::Unknown || t.type == SpTokenType::Control) added.push_back(added_token(id, t.piece));
  }
  for (const auto& [score, id, l, r] : merges)
    merge_list.push_back(tokens[(size_t)l].piece + " " + tokens[(size_t)r].piece);
  ordered_json j = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}};
  j["added_tokens"] = std::move(added);
  add_text_rules(j, add_bos ? tokens[(size_t)bos_id].piece : "", bos_id, add_bos);
  j["model"] = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", tokens[(size_t)unk].piece},
                {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
                {"fuse_unk", true}, {"byte_fallback", true}, {"ignore_merges", false},
                {"vocab", std::move(vocab)}, {"merges", std::move(merge_list)}};
  return j;
}

}  // namespace llm0
