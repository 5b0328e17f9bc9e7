// SentencePiece-style BPE tokenizer.json (tokenizer/tokenizer_pieces.cpp): a tiny hand-made file
// in the layout of Llama 2's, every expected id worked out by hand from HF tokenizers' rules
// (BPE::merge_word, byte_fallback, fuse_unk, Metaspace, the Replace/ByteFallback/Fuse/Strip
// decoder, TemplateProcessing); malformed variants refused naming the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/check.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Ids = std::vector<int>;

const std::string kSp = "\xE2\x96\x81";  // "▁"
constexpr int kByte0 = 3;                // <0x00>; ids 0..2 are <unk> <s> </s>
constexpr int kSpace = 259, kA = 260, kB = 261, kSpA = 262, kAB = 263, kSpAB = 264, kC = 265;

// <unk> <s> </s>, <0x00>..<0xFF>, "▁" "a" "b" "▁a" "ab" "▁ab" "c"; merges "▁ a", "a b", "▁a b".
json llama_like() {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = kByte0 + b;
  }
  vocab[kSp] = kSpace, vocab["a"] = kA, vocab["b"] = kB, vocab[kSp + "a"] = kSpA;
  vocab["ab"] = kAB, vocab[kSp + "ab"] = kSpAB, vocab["c"] = kC;
  auto special = [](int id, const char* s) {
    return json{{"id", id}, {"content", s}, {"special", true}, {"normalized", false}};
  };
  return {
      {"version", "1.0"},
      {"added_tokens", {special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")}},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", kSp}},
                      {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSp}}}}}},
      {"pre_tokenizer", nullptr},
      {"post_processor", {{"type", "TemplateProcessing"},
                          {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                      {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                          {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"decoder", {{"type", "Sequence"}, {"decoders", {
                       {{"type", "Replace"}, {"pattern", {{"String", kSp}}}, {"content", " "}},
                       {{"type", "ByteFallback"}}, {{"type", "Fuse"}},
                       {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"model", {{"type", "BPE"}, {"unk_token", "<unk>"}, {"fuse_unk", true}, {"byte_fallback", true},
                 {"vocab", vocab}, {"merges", {kSp + " a", "a b", kSp + "a b"}}}}};
}

class SentencePieceJson : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("llm0_sp_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Tokenizer load(const json& j) {
    const std::string path = (dir_ / "tokenizer.json").string();
    std::ofstream(path) << j.dump();
    return Tokenizer::load(path);
  }
  void expect_refused(const json& j, const std::string& part1, const std::string& part2) {
    try {
      load(j);
      ADD_FAILURE() << "expected llm0::Error naming " << part1;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("tokenizer.json"), std::string::npos) << msg;
      EXPECT_NE(msg.find(part1), std::string::npos) << msg;
      EXPECT_NE(msg.find(part2), std::string::npos) << msg;
    }
  }
  fs::path dir_;
};

TEST_F(SentencePieceJson, MergesByRankOverCharactersWithByteFallback) {
  const Tokenizer tok = load(llama_like());
  EXPECT_EQ(tok.encode(""), Ids{});                    // Prepend leaves an empty text empty
  EXPECT_EQ(tok.encode("ab"), Ids{kSpAB});             // ▁ a b -> ▁a b (rank 0) -> ▁ab (rank 2)
  EXPECT_EQ(tok.encode("a c"), (Ids{kSpA, kSpace, kC}));  // ▁a▁c
  EXPECT_EQ(tok.encode("\xC3\xA9"), (Ids{kSpace, kByte0 + 0xC3, kByte0 + 0xA9}));  // é: its bytes
  EXPECT_EQ(tok.encode("<s>ab"), (Ids{1, kSpAB}));     // each text segment is normalized alone
  EXPECT_EQ(tok.encode_with_special_tokens("ab"), (Ids{1, kSpAB}));
  EXPECT_EQ(tok.prefix_ids(), Ids{1});
  EXPECT_EQ(tok.decode_strip_start(), 1);
}

TEST_F(SentencePieceJson, DecodeFusesBytesAndStripsTheDummyPrefix) {
  const Tokenizer tok = load(llama_like());
  EXPECT_EQ(tok.decode({kSpAB}), "ab");
  EXPECT_EQ(tok.decode({kSpA, kSpace, kC}), "a c");
  EXPECT_EQ(tok.decode({kSpace, kByte0 + 0xC3, kByte0 + 0xA9}), "\xC3\xA9");
  EXPECT_EQ(tok.decode({kA, kByte0 + 0xC3}), "a\xEF\xBF\xBD");  // half a character: U+FFFD
  EXPECT_EQ(tok.decode({1, kSpAB}), "<s> ab");                    // Strip sees '<' first
  EXPECT_EQ(tok.token_bytes(kSpAB), " ab");
  EXPECT_EQ(tok.token_bytes(kByte0 + 0x41), "A");
  for (const std::string s : {"a b c", "  ab  ", "\xC3\xA9 a\nb", "c\tab"})
    EXPECT_EQ(tok.decode(tok.encode(s)), s) << s;
}

TEST_F(SentencePieceJson, UnknownCharactersWithoutByteFallback) {
  json j = llama_like();
  j["model"]["byte_fallback"] = false;
  EXPECT_EQ(load(j).encode("\xC3\xA9\xC3\xA9"), (Ids{kSpace, 0}));  // fuse_unk: one <unk>
  j["model"]["fuse_unk"] = false;
  EXPECT_EQ(load(j).encode("\xC3\xA9\xC3\xA9"), (Ids{kSpace, 0, 0}));
}

TEST_F(SentencePieceJson, MetaspacePreTokenizer) {
  json j = llama_like();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"prepend_scheme", "first"}, {"split", true}};
  const Tokenizer first = load(j);
  EXPECT_EQ(first.encode("a c"), (Ids{kSpA, kSpace, kC}));  // ▁a | ▁c
  EXPECT_EQ(first.encode("ab ab"), (Ids{kSpAB, kSpAB}));
  EXPECT_EQ(first.encode("<s>a"), (Ids{1, kA}));              // not the start of the text: no ▁
  j["pre_tokenizer"]["prepend_scheme"] = "always";
  EXPECT_EQ(load(j).encode("<s>a"), (Ids{1, kSpA}));
  j["pre_tokenizer"]["prepend_scheme"] = "never";
  EXPECT_EQ(load(j).encode("a"), Ids{kA});
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"add_prefix_space", true}, {"split", false}};
  EXPECT_EQ(load(j).encode("ab ab"), (Ids{kSpAB, kSpAB}));  // one piece ▁ab▁ab, the same merges
}

TEST_F(SentencePieceJson, MalformedFilesAreRefusedByName) {
  json j = llama_like();
  j["model"]["merges"].push_back("a c");
  expect_refused(j, "model.merges[3]", "'ac', missing from model.vocab");
  j = llama_like();
  j["model"]["unk_token"] = "<nope>";
  expect_refused(j, "model.unk_token", "<nope>");
  j = llama_like();
  j["decoder"]["decoders"][0]["pattern"] = {{"Regex", kSp}};
  expect_refused(j, "decoder.decoders[0].pattern", "String");
  j = llama_like();
  j["post_processor"]["single"][0]["SpecialToken"]["id"] = "<bos>";
  expect_refused(j, "post_processor.single[0]", "<bos>");
  j = llama_like();
  j["normalizer"]["normalizers"].push_back({{"type", "Lowercase"}});
  expect_refused(j, "normalizer.normalizers[2].type", "Lowercase");
}

TEST_F(SentencePieceJson, SaveWritesTheFileBack) {
  const Tokenizer tok = load(llama_like());
  const std::string again = (dir_ / "again.json").string();
  tok.save(again);
  const Tokenizer back = Tokenizer::load(again);
  EXPECT_EQ(back.encode("a c ab \xC3\xA9"), tok.encode("a c ab \xC3\xA9"));
}

TEST_F(SentencePieceJson, MetaspaceDecoder) {
  json j = llama_like();
  j["decoder"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"prepend_scheme", "always"}, {"split", true}};
  j["model"]["byte_fallback"] = false;  // Metaspace alone decodes no <0xXX>
  const Tokenizer always = load(j);
  EXPECT_EQ(always.decode({kSpAB}), "ab");               // the first token's leading space dropped
  EXPECT_EQ(always.decode({kSpA, kSpace, kC}), "a c");  // later ones keep theirs
  EXPECT_EQ(always.decode({kA, kSpAB}), "a ab");
  j["decoder"]["prepend_scheme"] = "never";
  EXPECT_EQ(load(j).decode({kSpAB}), " ab");
  j["decoder"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"add_prefix_space", true}};  // older files
  EXPECT_EQ(load(j).decode({kSpAB}), "ab");
}

// Gemma 3's merges are [left, right] pairs; its ordinary added tokens (e.g. "▁▁") decode through the
// decoder's Replace like every token, and decode(skip_special_tokens) drops only the special ones.
TEST_F(SentencePieceJson, MergePairsAndOrdinaryAddedTokens) {
  json j = llama_like();
  j["model"]["merges"] = json::array({json::array({kSp, "a"}), json::array({"a", "b"}), json::array({kSp + "a", "b"})});
  j["added_tokens"].push_back({{"id", kC + 1}, {"content", kSp + kSp}, {"special", false}, {"normalized", false}});
  const Tokenizer tok = load(j);
  EXPECT_EQ(tok.encode("ab"), Ids{kSpAB});
  // matched in the raw text; each text segment gets its own Prepend "▁"
  EXPECT_EQ(tok.encode("a" + kSp + kSp + "b"), (Ids{kSpA, kC + 1, kSpace, kB}));
  EXPECT_EQ(tok.decode({kA, kC + 1}), "a  ");
  EXPECT_EQ(tok.decode({1, kSpAB, kC + 1, 2}), "<s> ab  </s>");
  EXPECT_EQ(tok.decode({1, kSpAB, kC + 1, 2}, /*skip_special_tokens=*/true), "ab  ");
}

TEST_F(SentencePieceJson, MalformedComponentsAreRefusedByName) {
  json j = llama_like();
  j["model"]["vocab"].erase("<0x80>");
  j["model"]["vocab"]["zz"] = kByte0 + 0x80;
  expect_refused(j, "model.byte_fallback", "'<0x80>'");
  j = llama_like();
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"prepend_scheme", "sometimes"}};
  expect_refused(j, "pre_tokenizer.prepend_scheme", "sometimes");
  j = llama_like();
  j["decoder"] = {{"type", "Metaspace"}, {"replacement", kSp}, {"prepend_scheme", "sometimes"}};
  expect_refused(j, "decoder.prepend_scheme", "sometimes");
  j = llama_like();
  j["decoder"]["decoders"][1] = {{"type", "CTC"}};
  expect_refused(j, "decoder.decoders[1].type", "CTC");
  j = llama_like();
  j["decoder"] = {{"type", "WordPiece"}};
  expect_refused(j, "decoder.type", "WordPiece");
  j = llama_like();
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  expect_refused(j, "pre_tokenizer.type", "Whitespace");
  j = llama_like();
  j["post_processor"] = {{"type", "BertProcessing"}};
  expect_refused(j, "post_processor.type", "BertProcessing");
  j = llama_like();
  j["added_tokens"][1]["normalized"] = true;  // under Prepend + Replace: not implemented
  expect_refused(j, "added_tokens[1] ('<s>')", "normalized true");
  j = llama_like();
  j["added_tokens"][2]["lstrip"] = "yes";
  expect_refused(j, "added_tokens[2].lstrip", "true or false");
  j = llama_like();
  j["model"]["merges"][1] = json::array({"a"});
  expect_refused(j, "model.merges[1]", "[left, right]");
}

}  // namespace
}  // namespace llm0
