// The tokenizer through a GGUF round trip (io/gguf/export_tokenizer.h, io/gguf/import_tokenizer.h):
// a tokenizer trained by llm0 (its own pre-tokenizer: digit groups of at most 3, CJK and emoji runs
// apart) comes back from tokenizer.huggingface.json with the same ids on text where GPT-2's rules
// split otherwise; a GGUF without that key (as llama.cpp's converters write it) still imports from
// the tokenizer.ggml.* arrays, with the "gpt-2" pre-tokenizer they name; the chat template travels as
// tokenizer.chat_template. Refusals of a key that
// disagrees with the arrays: test_gguf_import_errors.cpp.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "cli_runner.h"
#include "gguf_fixtures.h"
#include "io/gguf/export.h"
#include "io/gguf/import.h"

namespace llm0 {
namespace {

using namespace testing_fixtures;
using nlohmann::json;

// Text where llm0's rules and GPT-2's split apart: digit runs longer than 3 (llm0: groups of 3),
// CJK next to Latin letters and emoji next to punctuation (llm0: separate runs).
const std::vector<std::string> kLines = {
    "2024-12-31: 1234567890 items, 98765 left, 31415926535 digits, 1234 and 51234",
    "\xE4\xBB\xB7\xE6\xA0\xBC" "1234567" "\xE5\x85\x83, price" "\xE4\xBB\xB7\xE6\xA0\xBC" "abc",
    "ok!\xF0\x9F\x98\x80\xF0\x9F\x8E\x89!! wow\xF0\x9F\x98\x80" "abc 1234",
    "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C hello world 2048<|endoftext|>123456"};

// The trained checkpoint, exported to `gguf`.
struct Exported {
  std::string dir, gguf;
};

Exported trained_export() {
  std::vector<std::string> docs;
  for (int k = 0; k < 6; ++k)
    for (const std::string& line : kLines) docs.push_back(line + " " + std::to_string(123456789 * (k + 1)));
  // "234" far more often than "123": llm0 learns 23 then 234 and cuts "1234" as 123|4, while
  // BPE over the whole run (GPT-2's pre-token) merges 23 first and ends at 1|234.
  for (int k = 0; k < 20; ++k) docs.push_back("234;234;234;234;234");
  const Tokenizer trained = Tokenizer::train(docs, 420);
  const std::string tok = test::fresh_temp_path("gguf_tok", "trained.json");
  trained.save(tok);
  ModelConfig cfg = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  cfg.vocab_size = trained.vocab_size() + 6;  // padding rows, dropped again on import
  cfg.validate();
  Model m(cfg);
  random_weights(m, 5);
  Exported e{test::fresh_temp_path("gguf_tok", "ckpt"), test::fresh_temp_path("gguf_tok", "trained.gguf")};
  save_checkpoint(m, e.dir, tok);
  export_gguf(e.dir, e.gguf);
  return e;
}

// Export → import of llm0's own tokenizer gives identical ids on every line, and the key is what
// makes it so: the same file without it imports GPT-2's rules, which split these lines otherwise.
TEST(GgufImportTokenizer, TrainedTokenizerKeepsItsIdsThroughGguf) {
  const Exported e = trained_export();
  const Tokenizer want = Tokenizer::load(e.dir + "/tokenizer.json");
  const GgufFile file = read_gguf(e.gguf);
  EXPECT_EQ(file.at("tokenizer.huggingface.json").s, read_file(e.dir + "/tokenizer.json"));
  const std::string with = test::fresh_temp_path("gguf_tok", "with_hf");
  import_gguf(e.gguf, with);
  EXPECT_EQ(json::parse(read_file(with + "/tokenizer.json")), json::parse(read_file(e.dir + "/tokenizer.json")));
  const Tokenizer got = Tokenizer::load(with + "/tokenizer.json");
  ASSERT_EQ(got.vocab_size(), want.vocab_size());
  for (const std::string& line : kLines) {
    EXPECT_EQ(got.encode(line), want.encode(line)) << line;
    EXPECT_EQ(got.decode(got.encode(line)), line);
  }
  const std::string bare_gguf = test::fresh_temp_path("gguf_tok", "bare.gguf");
  write_gguf(without_key(file, "tokenizer.huggingface.json"), bare_gguf);
  const std::string bare = test::fresh_temp_path("gguf_tok", "bare_hf");
  import_gguf(bare_gguf, bare);
  const Tokenizer gpt2 = Tokenizer::load(bare + "/tokenizer.json");
  ASSERT_EQ(gpt2.vocab_size(), want.vocab_size());
  int differ = 0;
  for (const std::string& line : kLines) differ += gpt2.encode(line) != want.encode(line);
  EXPECT_GT(differ, 0) << "the lines do not tell llm0's pre-tokenizer from GPT-2's";
}

// The model's own chat template travels as llama.cpp's tokenizer.chat_template: export writes the
// key from tokenizer_config.json, import writes tokenizer_config.json back with the template and
// the texts of the eos / bos ids; a checkpoint without a template gets neither.
TEST(GgufImportTokenizer, ChatTemplateTravelsThroughGguf) {
  const Exported e = trained_export();
  EXPECT_EQ(read_gguf(e.gguf).find("tokenizer.chat_template"), nullptr);
  const std::string plain = test::fresh_temp_path("gguf_tok", "plain_import");
  import_gguf(e.gguf, plain);
  EXPECT_FALSE(std::filesystem::exists(plain + "/tokenizer_config.json"));
  const std::string tmpl = "{% for m in messages %}<|endoftext|>{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                           "{% if add_generation_prompt %}{{ eos_token }}assistant:{% endif %}";
  { std::ofstream(e.dir + "/tokenizer_config.json") << json({{"chat_template", tmpl}}).dump(); }
  const std::string gguf = test::fresh_temp_path("gguf_tok", "chat.gguf");
  export_gguf(e.dir, gguf);
  const GgufFile file = read_gguf(gguf);
  ASSERT_NE(file.find("tokenizer.chat_template"), nullptr);
  EXPECT_EQ(file.at("tokenizer.chat_template").s, tmpl);
  const std::string out = test::fresh_temp_path("gguf_tok", "chat_import");
  import_gguf(gguf, out);
  const json config = json::parse(read_file(out + "/tokenizer_config.json"));
  EXPECT_EQ(config["chat_template"], tmpl);
  EXPECT_EQ(config["eos_token"], "<|endoftext|>");  // the exported eos id's token
  const std::optional<chat::ChatTemplate> t = chat::load_chat_template(out);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->render(nlohmann::ordered_json::parse(R"([{"role": "user", "content": "hi"}])"), true),
            "<|endoftext|>user: hi\n<|endoftext|>assistant:");
}

// Without tokenizer.huggingface.json the tokenizer comes from the arrays: the same tokens and
// merges, and the pre-tokenizer the GGUF names ("gpt-2": GPT-2's regex, as llama.cpp splits).
TEST(GgufImportTokenizer, WithoutTheKeyTheArraysAndTheirPreTokenizerAreImported) {
  const Exported e = trained_export();
  const std::string gguf = test::fresh_temp_path("gguf_tok", "nokey.gguf");
  write_gguf(without_key(read_gguf(e.gguf), "tokenizer.huggingface.json"), gguf);
  const std::string out = test::fresh_temp_path("gguf_tok", "nokey_hf");
  import_gguf(gguf, out);
  const json tok = json::parse(read_file(out + "/tokenizer.json"));
  EXPECT_EQ(tok["pre_tokenizer"]["type"], "ByteLevel");
  EXPECT_EQ(tok["pre_tokenizer"]["use_regex"], true);
  const Tokenizer a = Tokenizer::load(e.dir + "/tokenizer.json"), b = Tokenizer::load(out + "/tokenizer.json");
  for (int id = 0; id < a.vocab_size(); ++id) ASSERT_EQ(b.token_bytes(id), a.token_bytes(id)) << id;
  EXPECT_TRUE(b.merges() == a.merges());
  for (const std::string& line : kLines) EXPECT_EQ(b.decode(b.encode(line)), line);
}

}  // namespace
}  // namespace llm0
