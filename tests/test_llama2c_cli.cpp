// `llm0 convert --from llama2c` end to end on the published stories260K (tests/data/stories260K):
// the converted directory generates the golden greedy story (tests/gen/gen_stories260K_golden.py,
// from the PyTorch twin) from BOS; the version 1 header gives the same tensors as the legacy one;
// malformed llama2.c files are refused with messages that name the file and what is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_fixtures::quote;
using testing_fixtures::read_file;
using testing_fixtures::run_cli;

const std::string kData = std::string(LLM0_SOURCE_DIR) + "/tests/data/stories260K/";
const std::string kModel = kData + "stories260K.bin", kTok = kData + "tok512.bin";

class Llama2c : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("llm0_l2c_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  testing_fixtures::CmdOut convert(const std::string& model, const std::string& tok, const std::string& out) {
    return run_cli("convert --from llama2c " + quote(model) + " --tokenizer " + quote(tok) + " --output " +
                       quote(path(out)), dir_ / "err.txt");
  }
  // Expects converting (model, tok) to fail with a message holding every one of `parts`.
  void expect_refused(const std::string& model, const std::string& tok, const std::vector<std::string>& parts) {
    const auto r = convert(model, tok, "refused");
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    for (const std::string& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "want '" << p << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(path("refused"))) << "nothing is written on failure";
  }
  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  fs::path dir_;
};

TEST_F(Llama2c, Stories260KGeneratesTheGoldenGreedyStoryFromBos) {
  const auto c = convert(kModel, kTok, "s260");
  ASSERT_EQ(c.rc, 0) << c.err;
  const json cfg = json::parse(read_file(path("s260/config.json")));
  EXPECT_EQ(cfg["architectures"][0], "LlamaForCausalLM");
  EXPECT_EQ(cfg["hidden_size"], 64);
  EXPECT_EQ(cfg["num_key_value_heads"], 4);
  EXPECT_EQ(cfg["tie_word_embeddings"], true);
  EXPECT_EQ(json::parse(read_file(path("s260/generation_config.json")))["bos_token_id"], 1);
  const json golden = json::parse(read_file(kData + "greedy_200.json"));
  const auto g = run_cli("generate --model " + quote(path("s260")) +
                             " --prompt '' --temperature 0 --max-new-tokens 200 --json", dir_ / "err.txt");
  ASSERT_EQ(g.rc, 0) << g.err;
  const json r = json::parse(g.out);
  EXPECT_EQ(r["prompt_ids"], json::array({1}));  // <s>, from the tokenizer's TemplateProcessing
  EXPECT_EQ(r["generated_ids"], golden["ids"]);
  EXPECT_EQ(r["text"], golden["text"]);  // starts "Once upon a time": the dummy-prefix space dropped
  // A prompt gets <s> first too, as llama2.c and HF (add_special_tokens) encode it; greedy goes on
  // as the golden story does after its first four tokens.
  const auto p = run_cli("generate --model " + quote(path("s260")) +
                             " --prompt 'Once upon a time' --temperature 0 --max-new-tokens 3 --json", dir_ / "err.txt");
  ASSERT_EQ(p.rc, 0) << p.err;
  const json pr = json::parse(p.out);
  const std::vector<int> ids = golden["ids"];
  EXPECT_EQ(pr["prompt_ids"], json::array({1, ids[0], ids[1], ids[2], ids[3]}));
  EXPECT_EQ(pr["generated_ids"], json::array({ids[4], ids[5], ids[6]}));
}

// The same weights written with llama2.c's version 1 header (export.py version1_export: norms
// first) convert to the same model.safetensors as the legacy file.
TEST_F(Llama2c, Version1HeaderGivesTheSameTensors) {
  const std::string v0 = read_file(kModel);
  int32_t h[7];
  std::memcpy(h, v0.data(), sizeof h);
  const int64_t C = h[0], F = h[1], L = h[2], V = h[5], S = h[6], D = C / h[3], Ckv = h[4] * D;
  // legacy order: embed, att norm, wq, wk, wv, wo, ffn norm, w1, w2, w3, final norm, freq_cis x2
  const std::vector<int64_t> sizes = {V * C, L * C, L * C * C, L * Ckv * C, L * Ckv * C, L * C * C,
                                      L * C, L * F * C, L * C * F, L * F * C, C, S * D / 2, S * D / 2};
  std::vector<std::string> parts;
  size_t at = 28;
  for (int64_t n : sizes) parts.push_back(v0.substr(at, 4 * n)), at += 4 * n;
  ASSERT_EQ(at, v0.size());
  std::string v1(256, '\0');
  const uint32_t magic = 0x616b3432;
  const int32_t version = 1;
  std::memcpy(&v1[0], &magic, 4);
  std::memcpy(&v1[4], &version, 4);
  std::memcpy(&v1[8], h, sizeof h);
  v1[36] = 1;  // shared classifier
  for (int i : {1, 6, 10, 0, 2, 3, 4, 5, 7, 8, 9}) v1 += parts[i];
  ASSERT_EQ(convert(kModel, kTok, "from_v0").rc, 0);
  const auto c1 = convert(write("v1.bin", v1), kTok, "from_v1");
  ASSERT_EQ(c1.rc, 0) << c1.err;
  EXPECT_TRUE(read_file(path("from_v1/model.safetensors")) == read_file(path("from_v0/model.safetensors")));
}

TEST_F(Llama2c, MalformedFilesAreRefusedByName) {
  const std::string v0 = read_file(kModel);
  const std::string size = std::to_string(v0.size());
  expect_refused(write("cut.bin", v0.substr(0, v0.size() - 100)), kTok,
                 {"cut.bin", "implies " + size + " bytes, the file has " + std::to_string(v0.size() - 100) +
                  " bytes (truncated?)"});
  expect_refused(write("long.bin", v0 + "xxxx"), kTok, {"long.bin", "extra data after the last tensor"});
  expect_refused(write("tiny.bin", v0.substr(0, 10)), kTok, {"tiny.bin", "10 bytes is too short"});
  std::string heads = v0;
  const int32_t seven = 7;
  std::memcpy(&heads[12], &seven, 4);  // n_heads
  expect_refused(write("heads.bin", heads), kTok, {"heads.bin", "dim=64 is not divisible by n_heads=7"});
  std::string hidden = v0;
  const int32_t wrong_hidden = 100;
  std::memcpy(&hidden[4], &wrong_hidden, 4);  // hidden_dim 172 -> 100: the sizes no longer add up
  expect_refused(write("hidden.bin", hidden), kTok, {"hidden.bin", "hidden_dim=100", "implies", size + " bytes"});
  std::string untied = v0;
  const int32_t neg_vocab = -512;  // "untied", but there is no classifier in the file
  std::memcpy(&untied[20], &neg_vocab, 4);
  expect_refused(write("untied.bin", untied), kTok, {"untied.bin", "separate classifier", "truncated?"});
  std::string huge = v0;
  const int32_t big[5] = {1 << 30, 1 << 30, 1 << 30, 1 << 20, 1 << 20};  // products past 2^63
  std::memcpy(&huge[0], big, sizeof big);
  expect_refused(write("huge.bin", huge), kTok, {"huge.bin", "implies more than 9e18 bytes", "truncated?"});
  std::string q8(256, '\0');
  const uint32_t magic = 0x616b3432;
  int32_t version = 2;
  std::memcpy(&q8[0], &magic, 4);
  std::memcpy(&q8[4], &version, 4);
  expect_refused(write("q8.bin", q8), kTok, {"q8.bin", "llama2.c version 2 (Q8_0 export) is not supported"});
  version = 3;
  std::memcpy(&q8[4], &version, 4);
  expect_refused(write("v3.bin", q8), kTok, {"v3.bin", "llama2.c header version 3 is unknown"});
  // tok512.bin without its last token: 511 tokens for a model of 512.
  const std::string tok = read_file(kTok);
  const std::string last = "\xe2\x80\x8a";  // token 511, the last 4 + 4 + 3 bytes of the file
  ASSERT_EQ(tok.substr(tok.size() - 3), last);
  expect_refused(kModel, write("tok511.bin", tok.substr(0, tok.size() - 11)),
                 {"tok511.bin holds 511 tokens", "vocab_size=512", "do not belong together"});
  expect_refused(kModel, write("tokcut.bin", tok.substr(0, tok.size() - 2)), {"tokcut.bin", "token 511 is cut off"});
  const auto no_tok = run_cli("convert --from llama2c " + quote(kModel) + " --output " + quote(path("x")), dir_ / "err.txt");
  EXPECT_EQ(no_tok.rc, 1);
  EXPECT_NE(no_tok.err.find("needs --tokenizer TOK.bin"), std::string::npos) << no_tok.err;
}

// llama2.c's tok512.bin given where a tokenizer.json belongs: refused as not JSON, with the
// parser's position and without nlohmann's "[json.exception...]" text (issue 26, fresh-26).
TEST_F(Llama2c, ABinaryTokenizerIsNotJsonWithoutLibraryText) {
  const auto r = run_cli("tokenizer encode --tokenizer " + quote(kTok) + " --text hi", dir_ / "err.txt");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("tok512.bin: not valid JSON (syntax error at byte 1)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace llm0
