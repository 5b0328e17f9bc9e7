// tokenizer.json save/load (tokenizer/tokenizer_json.cpp): round trip, the Hugging Face layout
// (byte-level strings, "a b" merges, added_tokens, ByteLevel decoder), and malformed files that
// must raise llm0::Error naming the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

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

class TokenizerJson : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("llm0_tok_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static Tokenizer small() {
    return Tokenizer::train({"床前明月光，疑是地上霜。", "the cat sat on the mat", "明月 明月 ab ab"}, 300);
  }
  // Saves `small()`, lets `edit` change the JSON, writes it back and returns the path.
  template <class Edit>
  std::string edited(const std::string& name, Edit edit) const {
    const std::string p = path(name);
    small().save(p);
    json j = json::parse(std::ifstream(p));
    edit(j);
    std::ofstream(p) << j.dump();
    return p;
  }
  // Expects load(p) to throw llm0::Error whose message names the file and `field`.
  static void expect_load_error(const std::string& p, const std::string& field) {
    try {
      Tokenizer::load(p);
      ADD_FAILURE() << "expected llm0::Error for " << field;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p), std::string::npos) << msg;
      EXPECT_NE(msg.find(field), std::string::npos) << msg;
    }
  }

  fs::path dir_;
};

TEST_F(TokenizerJson, SaveLoadGivesTheSameTokenizer) {
  const Tokenizer tok = small();
  const std::string p = path("tokenizer.json");
  tok.save(p);
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  const Tokenizer back = Tokenizer::load(p);
  EXPECT_EQ(back.vocab_size(), tok.vocab_size());
  EXPECT_EQ(back.merges(), tok.merges());
  EXPECT_EQ(back.eos_id(), tok.eos_id());
  for (int id = 0; id < tok.vocab_size(); ++id) EXPECT_EQ(back.token_bytes(id), tok.token_bytes(id));
  for (const std::string s : {"床前明月光", "the cat<|endoftext|>明月 \xff\xfe ab", "😀 123"})
    EXPECT_EQ(back.encode(s), tok.encode(s)) << s;
}

TEST_F(TokenizerJson, LayoutIsHuggingFaceByteLevelBpe) {
  const Tokenizer tok = small();
  const std::string p = path("tokenizer.json");
  tok.save(p);
  const json j = json::parse(std::ifstream(p));
  EXPECT_EQ(j["model"]["type"], "BPE");
  EXPECT_EQ(j["decoder"]["type"], "ByteLevel");
  EXPECT_EQ(j["pre_tokenizer"]["pretokenizers"][1]["type"], "ByteLevel");
  EXPECT_EQ(j["pre_tokenizer"]["pretokenizers"][0]["type"], "Split");
  const json& vocab = j["model"]["vocab"];
  EXPECT_EQ(vocab["\xC4\xA0"], 32);  // "Ġ" is the space byte
  EXPECT_EQ(vocab["A"], 65);
  EXPECT_EQ(vocab.size(), static_cast<size_t>(tok.vocab_size()));
  // Merge 0 written as "left right" in byte-level form.
  const BpeMerge m0 = tok.merges()[0];
  const json first = j["model"]["merges"][0];
  ASSERT_TRUE(first.is_string());
  const std::string s = first.get<std::string>();
  EXPECT_EQ(vocab[s.substr(0, s.find(' '))], m0.left);
  EXPECT_EQ(vocab[s.substr(s.find(' ') + 1)], m0.right);
  ASSERT_EQ(j["added_tokens"].size(), 1u);
  EXPECT_EQ(j["added_tokens"][0]["content"], "<|endoftext|>");
  EXPECT_EQ(j["added_tokens"][0]["id"], tok.eos_id());
  EXPECT_EQ(j["added_tokens"][0]["special"], true);
}

TEST_F(TokenizerJson, MergesAsPairsAreAccepted) {
  // Newer tokenizers versions write merges as ["left", "right"] arrays.
  const std::string p = edited("pairs.json", [](json& j) {
    for (json& m : j["model"]["merges"]) {
      const std::string s = m.get<std::string>();
      m = json::array({s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1)});
    }
  });
  EXPECT_EQ(Tokenizer::load(p).merges(), small().merges());
}

TEST_F(TokenizerJson, MalformedFilesRaiseErrorsNamingTheField) {
  const std::string garbage = path("garbage.json");
  std::ofstream(garbage) << "{ \"model\": ";
  expect_load_error(garbage, "not valid JSON");
  expect_load_error(path("missing.json"), "does not exist");
  expect_load_error(edited("nomodel.json", [](json& j) { j.erase("model"); }), "'model'");
  expect_load_error(edited("type.json", [](json& j) { j["model"]["type"] = "WordPiece"; }),
                    "model.type");
  expect_load_error(edited("type2.json", [](json& j) { j["model"]["type"] = 7; }), "model.type");
  expect_load_error(edited("novocab.json", [](json& j) { j["model"].erase("vocab"); }),
                    "model.vocab");
  expect_load_error(edited("nomerges.json", [](json& j) { j["model"]["merges"] = 3; }),
                    "model.merges");
  expect_load_error(edited("badid.json", [](json& j) { j["model"]["vocab"]["A"] = "x"; }),
                    "model.vocab['A']");
  expect_load_error(edited("badkey.json", [](json& j) { j["model"]["vocab"]["中"] = 9999; }),
                    "model.vocab key");
  expect_load_error(edited("gap.json", [](json& j) { j["model"]["vocab"]["A"] = 9999; }),
                    "every id");
  expect_load_error(edited("badmerge.json", [](json& j) { j["model"]["merges"][0] = "ab"; }),
                    "model.merges[0]");
  expect_load_error(edited("unknown.json", [](json& j) { j["model"]["merges"][1] = "zz qq"; }),
                    "model.merges[1]");
  expect_load_error(edited("added.json", [](json& j) { j["added_tokens"][0].erase("id"); }),
                    "added_tokens[0]");
}

TEST_F(TokenizerJson, SaveToUnwritablePlaceThrowsAndLeavesNothing) {
  const std::string p = path("no/such/dir/tokenizer.json");
  EXPECT_THROW(small().save(p), Error);
  EXPECT_FALSE(fs::exists(p));
}

// DeepSeek-V3's file lists its special tokens in model.vocab too, under their own text (not a
// byte-level string): accepted for an added token's own id and content, refused otherwise.
TEST_F(TokenizerJson, AddedTokenMayHaveItsOwnTextInTheVocab) {
  const std::string bos = "<\xEF\xBD\x9C" "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>";  // <｜begin▁of▁sentence｜>
  int bos_id = -1;
  const std::string p = edited("deepseek.json", [&](json& j) {
    bos_id = static_cast<int>(j["model"]["vocab"].size());
    j["model"]["vocab"][bos] = bos_id;
    j["added_tokens"].push_back({{"id", bos_id}, {"content", bos}, {"special", true}, {"normalized", true}});
  });
  const Tokenizer tok = Tokenizer::load(p);
  const std::vector<int> ids = tok.encode("the" + bos + "cat");
  std::vector<int> want = tok.encode("the");  // the token matched whole before pre-tokenization
  want.push_back(bos_id);
  for (int id : tok.encode("cat")) want.push_back(id);
  EXPECT_EQ(ids, want);
  EXPECT_EQ(tok.decode(ids), "the" + bos + "cat");
  EXPECT_EQ(tok.decode(ids, /*skip_special_tokens=*/true), "thecat");
  const std::string bad = edited("bad.json", [&](json& j) {
    j["model"]["vocab"][bos] = static_cast<int>(j["model"]["vocab"].size());  // not an added token
  });
  expect_load_error(bad, "model.vocab key '" + bos + "' is not a byte-level string");
}

// An added token whose text is another id's (found by fuzz_tokenizer_json: loaded, then its saved
// copy, keyed by text, lost an id): refused, naming the token and the id Hugging Face would use.
TEST_F(TokenizerJson, AddedTokenWithAnotherTokensTextIsRefused) {
  int v = -1;
  const std::string in_vocab = edited("vocab_twin.json", [&](json& j) {
    v = static_cast<int>(j["model"]["vocab"].size());
    j["model"]["vocab"]["<x>"] = v;
    j["added_tokens"].push_back({{"id", v + 1}, {"content", "<x>"}, {"special", false}});
  });
  expect_load_error(in_vocab, "added token '<x>' has id " + std::to_string(v + 1) +
                                  ", but its text is token id " + std::to_string(v));
  const std::string twins = edited("added_twins.json", [&](json& j) {
    v = static_cast<int>(j["model"]["vocab"].size());
    j["added_tokens"].push_back({{"id", v}, {"content", "<y>"}, {"special", true}});
    j["added_tokens"].push_back({{"id", v + 1}, {"content", "<y>"}, {"special", true}});
  });
  expect_load_error(twins, "added tokens " + std::to_string(v) + " and " + std::to_string(v + 1) +
                               " have the same text '<y>'");
}

// Added tokens' flags (HF AddedToken): lstrip / rstrip take the whitespace beside the token, a
// non-special one stays in decode(skip_special_tokens), single_word is refused by name.
TEST_F(TokenizerJson, AddedTokenFlags) {
  const Tokenizer plain = small();
  int x = -1;
  const std::string p = edited("flags.json", [&](json& j) {
    x = static_cast<int>(j["model"]["vocab"].size());
    j["model"]["vocab"]["<x>"] = x;
    j["added_tokens"].push_back({{"id", x}, {"content", "<x>"}, {"special", false}, {"lstrip", true},
                                 {"rstrip", true}, {"normalized", false}});
  });
  const Tokenizer tok = Tokenizer::load(p);
  std::vector<int> want = plain.encode("the");
  want.push_back(x);
  for (int id : plain.encode("cat")) want.push_back(id);
  EXPECT_EQ(tok.encode("the \t <x> \n cat"), want);  // the whitespace on both sides is gone
  EXPECT_EQ(tok.encode("the<x>cat"), want);
  EXPECT_EQ(tok.decode({x, tok.eos_id()}, true), "<x>");  // not special: kept; <|endoftext|> skipped
  EXPECT_EQ(tok.decode({x, tok.eos_id()}), "<x><|endoftext|>");
  expect_load_error(edited("single.json", [](json& j) { j["added_tokens"][0]["single_word"] = true; }),
                    "added_tokens[0] ('<|endoftext|>') has single_word true");
  expect_load_error(edited("id.json", [](json& j) { j["added_tokens"][0]["id"] = 100000; }),
                    "id 100000 with only");
}

}  // namespace
}  // namespace llm0
