// Tokenizer::save / Tokenizer::load: Hugging Face tokenizer.json (tokenizers 0.x "version 1.0"
// layout; reference: huggingface/tokenizers src/models/bpe/serialization.rs). Token strings are
// byte-level (byte_unicode.h). For llm0's own rules the pre_tokenizer written is
// Split(pretokenize_regex(), Isolated) then ByteLevel(use_regex=false); a loaded tokenizer writes
// back the normalizer and pre_tokenizer it was read with (text_rules.h). The decoder is
// ByteLevel; special tokens are added_tokens.
#include <fstream>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/json_file.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_json.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/encode_cache.h"
#include "tokenizer/piece_vocab.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/text_rules.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json byte_level_json(bool prefix_space) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", prefix_space}, {"trim_offsets", true},
          {"use_regex", false}};
}

ordered_json model_json(const std::vector<std::string>& tokens, const std::vector<BpeMerge>& merges,
                        bool ignore_merges) {
  ordered_json vocab = ordered_json::object();
  for (size_t id = 0; id < tokens.size(); ++id) vocab[bytes_to_byte_level(tokens[id])] = id;
  ordered_json merge_list = ordered_json::array();
  for (const auto& [l, r] : merges)
    merge_list.push_back(bytes_to_byte_level(tokens[l]) + " " + bytes_to_byte_level(tokens[r]));
  return {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr},
          {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
          {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", ignore_merges},
          {"vocab", std::move(vocab)}, {"merges", std::move(merge_list)}};
}

// Refuses BPE model options llm0 does not implement (HF src/models/bpe/model.rs).
void check_bpe_options(const json& model, const std::string& path) {
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json v = model.value(key, json(nullptr));
    LLM0_CHECK(v.is_null() || v == json(""), "{}: model.{} = {} is not supported (llm0 implements "
               "byte-level BPE without word affixes)", path, key, json_excerpt(v));
  }
  const json dropout = model.value("dropout", json(nullptr));
  LLM0_CHECK(dropout.is_null() || dropout == json(0.0),
             "{}: model.dropout = {} is not supported (BPE dropout is for training)", path, json_excerpt(dropout));
  const json ignore = model.value("ignore_merges", json(false));
  LLM0_CHECK(ignore.is_boolean(), "{}: model.ignore_merges is not true or false", path);
}

}  // namespace

void Tokenizer::save(const std::string& path) const {
  if (pieces_) {  // SentencePiece-style: the file as it was read
    AtomicFile file(path);
    file.write(pieces_->file_text.data(), pieces_->file_text.size());
    file.commit();
    return;
  }
  ordered_json added = ordered_json::array();
  for (const auto& [text, id] : specials_) {
    const uint8_t f = added_flags_[id];
    added.push_back({{"id", id}, {"content", text}, {"single_word", false}, {"lstrip", (f & kLstrip) != 0},
                     {"rstrip", (f & kRstrip) != 0}, {"normalized", false}, {"special", (f & kSpecial) != 0}});
  }
  ordered_json split = {{"type", "Split"}, {"pattern", {{"Regex", pretokenize_regex()}}},
                        {"behavior", "Isolated"}, {"invert", false}};
  ordered_json normalizer = nullptr;
  ordered_json pre = {{"type", "Sequence"}, {"pretokenizers", {split, byte_level_json(false)}}};
  if (rules_ && !rules_->native) {  // keep what the file was read with
    normalizer = ordered_json::parse(rules_->normalizer_json.dump());
    pre = ordered_json::parse(rules_->pre_tokenizer_json.dump());
  }
  ordered_json j = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr},
                    {"added_tokens", std::move(added)}, {"normalizer", std::move(normalizer)},
                    {"pre_tokenizer", std::move(pre)},
                    {"post_processor", byte_level_json(false)},
                    {"decoder", byte_level_json(false)},
                    {"model", model_json(tokens_, merges_, ignore_merges_)}};
  std::string text;
  try {
    text = j.dump(1);
  } catch (const ordered_json::exception& e) {  // e.g. a special token that is not UTF-8
    LLM0_FAIL("{}: cannot serialise tokenizer: {}", path, e.what());
  }
  text += '\n';
  AtomicFile file(path);  // path + ".tmp", then rename; a failed save leaves `path` untouched
  file.write(text.data(), text.size());
  file.commit();
}

Tokenizer Tokenizer::load(const std::string& path) {
  std::string text;  // the file's bytes: a SentencePiece-style tokenizer saves them back
  const json j = read_json_file(path, "tokenizer file", &text);
  LLM0_CHECK(j.is_object() && j.contains("model") && j["model"].is_object(),
             "{}: missing object field 'model'", path);
  const json& model = j["model"];
  const json type = model.value("type", json("BPE"));
  LLM0_CHECK(type == "BPE", "{}: model.type is {}, expected \"BPE\"", path, json_excerpt(type));
  LLM0_CHECK(model.contains("vocab") && model["vocab"].is_object(),
             "{}: missing object field 'model.vocab'", path);
  LLM0_CHECK(model.contains("merges") && model["merges"].is_array(),
             "{}: missing array field 'model.merges'", path);
  check_bpe_options(model, path);
  Tokenizer tok;
  tok.rules_ = std::make_shared<const TextRules>(text_rules_from_json(j, path));
  tok.ignore_merges_ = model.value("ignore_merges", json(false)) == json(true);
  if (!tok.rules_->decoder.byte_level || model.value("byte_fallback", json(false)) == json(true)) {
    tok.load_pieces(j, path, std::move(text));  // SentencePiece-style BPE (tokenizer_pieces.cpp)
    return tok;
  }
  std::unordered_map<std::string, int> vocab;    // byte-level string -> id
  vocab.reserve(model["vocab"].size());
  std::unordered_map<int, std::string> added;    // id -> added token content
  for (const AddedToken& t : tok.take_added_tokens(j, path)) added[t.id] = t.content;
  TokenTable table(model["vocab"].size() + added.size());  // id -> raw bytes
  for (const auto& [key, value] : model["vocab"].items()) {
    const int id = vocab_id(key, value, path);
    const auto a = added.find(id);
    const bool added_entry = a != added.end() && a->second == key;  // e.g. <｜begin▁of▁sentence｜>
    auto bytes = byte_level_to_bytes(key);
    LLM0_CHECK(bytes.has_value() || added_entry,
               "{}: model.vocab key '{}' is not a byte-level string (nor an added token of id {})", path, key, id);
    table.add_vocab(id, bytes ? std::move(*bytes) : key, path);
    vocab[key] = id;
  }
  for (auto& [id, content] : added) table.add_added(id, std::move(content), path);  // overrides the vocab entry
  tok.tokens_ = table.take(path);
  const json& merges = model["merges"];
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto [left, right] = merge_parts(merges[i], path, i);
    const auto l = vocab.find(left), r = vocab.find(right);
    LLM0_CHECK(l != vocab.end() && r != vocab.end(),
               "{}: model.merges[{}] = '{} {}' names a token missing from model.vocab", path, i, left, right);
    tok.merges_.push_back({l->second, r->second});
  }
  tok.finish(path);
  return tok;
}

}  // namespace llm0
