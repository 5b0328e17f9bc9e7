// tokenizer.json pre-tokenizers and normalizers (tokenizer/pre_tokenizer.h, text_rules.h,
// normalizer.h, regex.h). Goldens: tests/data/pretokenize_goldens.json, the pieces Debian's
// python3-regex module makes with the GPT-2, Llama-3 and Qwen2 patterns (made by
// tests/gen/gen_pretokenize_goldens.py). Split behaviours and Digits: the examples of HF
// tokenizers' documentation (SplitDelimiterBehavior, pre_tokenizers.Digits).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/check.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/text_rules.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Pieces = std::vector<std::string>;

// Pieces of `text` under the pre_tokenizer JSON `pre` (as in a tokenizer.json).
Pieces pieces(const json& pre, const std::string& text) {
  const TextRules rules = text_rules_from_json(json{{"pre_tokenizer", pre}}, "test.json");
  EXPECT_FALSE(rules.native);
  return rules.pre_tokenizer->split(text);
}

json split_json(const std::string& regex, const std::string& behavior, bool invert = false) {
  return {{"type", "Split"}, {"pattern", {{"Regex", regex}}}, {"behavior", behavior}, {"invert", invert}};
}

json byte_level_json(bool add_prefix_space, bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", true},
          {"use_regex", use_regex}};
}

// The pre_tokenizer section of the real files: GPT-2 is ByteLevel alone; Llama-3 and Qwen2 are
// Sequence[Split(pattern, Isolated), ByteLevel(use_regex=false)].
json real_pre_tokenizer(const std::string& name, const std::string& pattern) {
  if (name == "gpt2") return byte_level_json(false, true);
  return {{"type", "Sequence"},
          {"pretokenizers", {split_json(pattern, "Isolated"), byte_level_json(false, false)}}};
}

TEST(PreTokenizers, GoldenSplitsOfGpt2Llama3AndQwen2Patterns) {
  const json g = json::parse(std::ifstream(std::string(LLM0_SOURCE_DIR) + "/tests/data/pretokenize_goldens.json"));
  ASSERT_EQ(g["cases"].size(), 14u);
  int checked = 0;
  for (const auto& [name, pattern] : g["patterns"].items()) {
    const json pre = real_pre_tokenizer(name, pattern.get<std::string>());
    for (const json& c : g["cases"]) {
      const Pieces expected = c["pieces"][name].get<Pieces>();
      EXPECT_EQ(pieces(pre, c["text"].get<std::string>()), expected) << name << " on " << c["name"];
      ++checked;
    }
  }
  EXPECT_EQ(checked, 42);
}

TEST(PreTokenizers, GoldensDifferBetweenPatternsWhereTheyShould) {
  // Guards the golden file itself: digit grouping is what tells the three patterns apart.
  const json g = json::parse(std::ifstream(std::string(LLM0_SOURCE_DIR) + "/tests/data/pretokenize_goldens.json"));
  const json& numbers = g["cases"][2]["pieces"];
  ASSERT_EQ(g["cases"][2]["name"], "numbers");
  EXPECT_NE(numbers["gpt2"], numbers["llama3"]);
  EXPECT_NE(numbers["llama3"], numbers["qwen2"]);
}

TEST(PreTokenizers, SplitBehavioursFollowHuggingFaceDocs) {
  const std::string text = "the-final--countdown";
  EXPECT_EQ(pieces(split_json("-", "Removed"), text), (Pieces{"the", "final", "countdown"}));
  EXPECT_EQ(pieces(split_json("-", "Isolated"), text), (Pieces{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(pieces(split_json("-", "MergedWithPrevious"), text), (Pieces{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(pieces(split_json("-", "MergedWithNext"), text), (Pieces{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(pieces(split_json("-", "Contiguous"), text), (Pieces{"the", "-", "final", "--", "countdown"}));
  // invert: the regex names what to keep; Removed then drops everything between.
  EXPECT_EQ(pieces(split_json(R"(\w+)", "Removed", true), "Hello, world!"), (Pieces{"Hello", "world"}));
  EXPECT_EQ(pieces(split_json(R"(\w+)", "MergedWithPrevious", true), "Hello, world!"),
            (Pieces{"Hello, ", "world!"}));
  const json literal = {{"type", "Split"}, {"pattern", {{"String", "."}}}, {"behavior", "Removed"}};
  EXPECT_EQ(pieces(literal, "a.b+c"), (Pieces{"a", "b+c"}));  // "." is text, not "any character"
}

TEST(PreTokenizers, DigitsAndByteLevelOptions) {
  const json individual = {{"type", "Digits"}, {"individual_digits", true}};
  const json grouped = {{"type", "Digits"}, {"individual_digits", false}};
  EXPECT_EQ(pieces(individual, "Call 123 please"), (Pieces{"Call ", "1", "2", "3", " please"}));
  EXPECT_EQ(pieces(grouped, "Call 123 please"), (Pieces{"Call ", "123", " please"}));
  EXPECT_EQ(pieces(grouped, "x٣٤y"), (Pieces{"x", "٣٤", "y"}));  // Arabic-Indic digits are \p{N}
  EXPECT_EQ(pieces(byte_level_json(true, true), "Hello  world"), (Pieces{" Hello", " ", " world"}));
  EXPECT_EQ(pieces(byte_level_json(true, true), " hi"), (Pieces{" hi"}));  // no second space
  EXPECT_EQ(pieces(byte_level_json(false, false), "Hello  world"), (Pieces{"Hello  world"}));
  // A Sequence applies its steps in order; the prefix space goes on every piece (byte_level.rs).
  const json seq = {{"type", "Sequence"}, {"pretokenizers", {grouped, byte_level_json(true, false)}}};
  EXPECT_EQ(pieces(seq, "ab12"), (Pieces{" ab", " 12"}));
  EXPECT_EQ(pieces(json(nullptr), "no split at all"), (Pieces{"no split at all"}));
  EXPECT_TRUE(pieces(byte_level_json(false, true), "").empty());
}

TEST(PreTokenizers, InvalidUtf8NeverMatchesAndIsKept) {
  const json pre = byte_level_json(false, true);
  EXPECT_EQ(pieces(pre, "ab\xff\xfe cd"), (Pieces{"ab", "\xff\xfe", " cd"}));
}

TEST(PreTokenizers, Llm0PatternUnderPcre2AgreesWithLlm0Scanner) {
  // The regex llm0 writes into tokenizer.json must mean what its scanner does (valid UTF-8).
  const json pre = split_json(pretokenize_regex(), "Isolated");
  const std::vector<std::string> texts = {
      "Hello world! It's 12345 o'clock.", "床前明月光，疑是地上霜。「春眠」\n处处", "a   b\n\n c \t",
      "😀😀 x 🚀!", "don't we'll THEY'RE", "１２３４ 2024年", "  lead and trail  "};
  for (const std::string& t : texts) {
    Pieces native;
    for (std::string_view p : pretokenize(t)) native.emplace_back(p);
    EXPECT_EQ(pieces(pre, t), native) << t;
  }
}

TEST(Normalizers, UnicodeFormsAndInvalidBytes) {
  EXPECT_EQ(normalize_unicode("e\xcc\x81", UnicodeForm::NFC), "\xc3\xa9");  // e + U+0301 -> é
  EXPECT_EQ(normalize_unicode("\xc3\xa9", UnicodeForm::NFD), "e\xcc\x81");
  EXPECT_EQ(normalize_unicode("\xef\xac\x81", UnicodeForm::NFKC), "fi");    // U+FB01 ligature
  EXPECT_EQ(normalize_unicode("\xef\xac\x81", UnicodeForm::NFC), "\xef\xac\x81");
  EXPECT_EQ(normalize_unicode("e\xcc\x81\xff" "e\xcc\x81", UnicodeForm::NFC), "\xc3\xa9\xff\xc3\xa9");
}

// Expects text_rules_from_json(j) to throw naming `field` and `component`.
void expect_refused(const json& j, const std::string& field, const std::string& component) {
  try {
    text_rules_from_json(j, "tok.json");
    ADD_FAILURE() << "expected llm0::Error for " << field;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("tok.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(field), std::string::npos) << msg;
    EXPECT_NE(msg.find(component), std::string::npos) << msg;
  }
}

TEST(PreTokenizers, UnsupportedComponentsAreRefusedByName) {
  const json whitespace = {{"type", "WhitespaceSplit"}};
  expect_refused({{"pre_tokenizer", whitespace}}, "pre_tokenizer.type", "WhitespaceSplit");
  expect_refused({{"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {byte_level_json(false, false), whitespace}}}}},
                 "pre_tokenizer.pretokenizers[1].type", "WhitespaceSplit");
  expect_refused({{"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "sometimes"}}}},
                 "pre_tokenizer.prepend_scheme", "sometimes");
  expect_refused({{"normalizer", {{"type", "Replace"}, {"pattern", {{"Regex", " +"}}}, {"content", "▁"}}}},
                 "normalizer.pattern", "String");
  expect_refused({{"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "Strip"}, {"content", " "}, {"start", 1}}}}}}},
                 "decoder.decoders[0]", "Strip");
  expect_refused({{"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "CTC"}}}}}}},
                 "decoder.decoders[0].type", "CTC");
  expect_refused({{"post_processor", {{"type", "RobertaProcessing"}}}}, "post_processor.type", "RobertaProcessing");
  expect_refused({{"normalizer", {{"type", "Lowercase"}}}}, "normalizer.type", "Lowercase");
  expect_refused({{"decoder", {{"type", "WordPiece"}}}}, "decoder.type", "WordPiece");
  expect_refused({{"pre_tokenizer", split_json("(unclosed", "Isolated")}}, "pre_tokenizer.pattern", "(unclosed");
  expect_refused({{"pre_tokenizer", split_json("a", "Sideways")}}, "pre_tokenizer.behavior", "Sideways");
  expect_refused({{"pre_tokenizer", {{"type", "Split"}, {"pattern", "a"}, {"behavior", "Isolated"}}}},
                 "pre_tokenizer.pattern", "Regex");
  const TextRules nfc = text_rules_from_json({{"normalizer", {{"type", "NFC"}}}}, "tok.json");
  ASSERT_EQ(nfc.normalizers.size(), 1u);
  EXPECT_EQ(nfc.normalizers[0].form, UnicodeForm::NFC);
}

// A tokenizer.json of the 256 byte tokens, merges "1 2", "12 3", "4 5", and `pre_tokenizer`.
std::string write_digit_tokenizer(const std::string& path, const json& pre, const json& normalizer = nullptr) {
  const Tokenizer base = Tokenizer::train({"12345 123 45 12"}, 256 + 3 + 1);
  base.save(path);
  json j = json::parse(std::ifstream(path));
  j["pre_tokenizer"] = pre;
  j["normalizer"] = normalizer;
  std::ofstream(path) << j.dump();
  return path;
}

TEST(PreTokenizers, TokenizerLoadUsesTheFilesPreTokenizer) {
  const fs::path dir = fs::temp_directory_path() / ("llm0_pretok_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string own = (dir / "own.json").string();
  const Tokenizer trained = Tokenizer::train({"12345 123 45 12"}, 256 + 3 + 1);
  trained.save(own);
  const Tokenizer llm0_rules = Tokenizer::load(own);  // llm0's file: digits in threes
  EXPECT_EQ(llm0_rules.encode("12345"), trained.encode("12345"));
  ASSERT_EQ(trained.decode(trained.encode("12345")), "12345");
  EXPECT_LT(trained.encode("12345").size(), 5u);  // merges inside "123" and "45"
  const json qwen2 = real_pre_tokenizer("qwen2", R"(\p{N}|\s+)");
  const Tokenizer single = Tokenizer::load(write_digit_tokenizer((dir / "qwen.json").string(), qwen2));
  EXPECT_EQ(single.encode("12345"), (std::vector<int>{'1', '2', '3', '4', '5'}));  // no merge crosses
  // Saving keeps the file's pre_tokenizer; loading it again splits the same way.
  single.save((dir / "again.json").string());
  EXPECT_EQ(Tokenizer::load((dir / "again.json").string()).encode("12345"), single.encode("12345"));
  // NFC runs before the split: e + U+0301 becomes the two bytes of é.
  const Tokenizer nfc = Tokenizer::load(write_digit_tokenizer((dir / "nfc.json").string(), nullptr,
                                                              {{"type", "NFC"}}));
  EXPECT_EQ(nfc.encode("e\xcc\x81"), (std::vector<int>{0xc3, 0xa9}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llm0
