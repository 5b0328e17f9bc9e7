// read_llama2c_tokenizer, llama2c_tokenizer_json (see llama2c_tokenizer.h). The JSON layout is
// Hugging Face's for Llama 2 (transformers convert_slow_tokenizer.py LlamaConverter).
#include "io/llama2c_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

#include "core/check.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

constexpr int kFirstByteToken = 3;       // <0x00> follows <unk> <s> </s>
constexpr int kMaxPieceBytes = 1 << 16;  // refuse absurd lengths before allocating
const std::string kSpace = "\xE2\x96\x81";  // U+2581 "▁"

std::string byte_piece(int b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  return buf;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

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

// normalizer, pre_tokenizer, post_processor and decoder, as LlamaConverter writes them.
void add_text_rules(ordered_json& j) {
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {
      {{"type", "Prepend"}, {"prepend", kSpace}},
      {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSpace}}}}};
  j["pre_tokenizer"] = nullptr;
  j["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
      {"pair", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                {{"SpecialToken", {{"id", "<s>"}, {"type_id", 1}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}};
  j["decoder"] = {{"type", "Sequence"}, {"decoders", {
      {{"type", "Replace"}, {"pattern", {{"String", kSpace}}}, {"content", " "}},
      {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
      {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
}

}  // namespace

std::vector<Llama2cToken> read_llama2c_tokenizer(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "{}: cannot open the llama2.c tokenizer", path);
  int32_t max_len = 0;
  LLM0_CHECK(in.read(reinterpret_cast<char*>(&max_len), 4).good() && max_len > 0,
             "{}: not a llama2.c tokenizer (no positive max_token_length at the start)", path);
  std::vector<Llama2cToken> tokens;
  while (in.peek() != std::char_traits<char>::eof()) {
    Llama2cToken t;
    int32_t len = -1;
    in.read(reinterpret_cast<char*>(&t.score), 4);
    in.read(reinterpret_cast<char*>(&len), 4);
    LLM0_CHECK(in.good(), "{}: token {} is cut off by the end of the file (truncated?)", path, tokens.size());
    LLM0_CHECK(len >= 0 && len <= kMaxPieceBytes, "{}: token {} has length {} (expected 0..{})", path,
               tokens.size(), len, kMaxPieceBytes);
    t.piece.resize(static_cast<size_t>(len));
    in.read(t.piece.data(), len);
    LLM0_CHECK(in.good(), "{}: token {} is cut off by the end of the file (truncated?)", path, tokens.size());
    tokens.push_back(std::move(t));
  }
  return tokens;
}

ordered_json llama2c_tokenizer_json(const std::vector<Llama2cToken>& tokens, const std::string& where) {
  const int V = static_cast<int>(tokens.size());
  LLM0_CHECK(V >= kFirstByteToken + 256, "{}: {} tokens, fewer than <unk> <s> </s> and 256 byte tokens",
             where, V);
  const char* specials[] = {"<unk>", "<s>", "</s>"};
  std::vector<std::string> pieces(V);  // tokenizer.json strings ("▁" for a space)
  for (int id = 0; id < V; ++id) {
    const std::string& p = tokens[id].piece;
    if (id < kFirstByteToken) {
      LLM0_CHECK(p == specials[id] || p == "\n" + std::string(specials[id]) + "\n",
                 "{}: token {} is '{}', expected {}", where, id, p, specials[id]);
      pieces[id] = specials[id];
    } else if (id < kFirstByteToken + 256) {
      LLM0_CHECK(p == byte_piece(id - kFirstByteToken), "{}: token {} is '{}', expected the byte token {}",
                 where, id, p, byte_piece(id - kFirstByteToken));
      pieces[id] = p;
    } else {
      LLM0_CHECK(!p.empty() && utf8_valid(p), "{}: token {} is empty or not valid UTF-8", where, id);
      pieces[id] = replace_all(p, " ", kSpace);
    }
  }
  std::map<std::string, int> ids;
  for (int id = 0; id < V; ++id) {
    const auto [it, fresh] = ids.emplace(pieces[id], id);
    LLM0_CHECK(fresh, "{}: tokens {} and {} are both '{}'", where, it->second, id, pieces[id]);
  }
  // (-score of the merged piece, its id, left id, right id) -> the merge's rank
  std::vector<std::tuple<float, int, int, int>> merges;
  const int first_ordinary = kFirstByteToken + 256;
  for (int id = first_ordinary; id < V; ++id)
    for (size_t cut : inner_boundaries(pieces[id])) {
      const auto l = ids.find(pieces[id].substr(0, cut)), r = ids.find(pieces[id].substr(cut));
      if (l != ids.end() && r != ids.end() && l->second >= first_ordinary && r->second >= first_ordinary)
        merges.emplace_back(-tokens[id].score, id, l->second, r->second);
    }
  std::sort(merges.begin(), merges.end());
  ordered_json vocab = ordered_json::object(), merge_list = ordered_json::array();
  for (int id = 0; id < V; ++id) vocab[pieces[id]] = id;
  for (const auto& [score, id, l, r] : merges) merge_list.push_back(pieces[l] + " " + pieces[r]);
  ordered_json j = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}};
  j["added_tokens"] = {added_token(0, "<unk>"), added_token(1, "<s>"), added_token(2, "</s>")};
  add_text_rules(j);
  j["model"] = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", "<unk>"},
                {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
                {"fuse_unk", true}, {"byte_fallback", true}, {"ignore_merges", false},
                {"vocab", std::move(vocab)}, {"merges", std::move(merge_list)}};
  return j;
}

}  // namespace llm0
