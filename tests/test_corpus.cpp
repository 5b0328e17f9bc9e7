// Corpus (src/train/corpus.h): the fortunes-zh default corpus, the deterministic split by
// document, read_documents of text / .jsonl / directories, write_jsonl, and `llm0 data`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/check.h"
#include "error_message.h"
#include "train/corpus.h"

namespace fs = std::filesystem;
using Docs = std::vector<std::string>;
using llm0::testing_fixtures::contains;
using llm0::testing_fixtures::error_of;

namespace {

// A fresh empty directory per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("llm0_corpus_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path p = path / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(Corpus, Fnv1aKnownVectors) {  // from the FNV reference test suite (Fowler/Noll/Vo)
  EXPECT_EQ(llm0::fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(llm0::fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(llm0::fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(Corpus, FortunesZhDefaultCorpus) {
  const Docs docs = llm0::fortunes_zh_documents();
  EXPECT_GT(docs.size(), 1000u);
  EXPECT_EQ(docs[0].rfind("《感遇・其一》\n作者：张九龄\n兰叶春葳蕤，桂华秋皎洁。\n", 0), 0u) << docs[0];
  for (const std::string& d : docs) {
    ASSERT_FALSE(d.empty());
    ASSERT_EQ(d.find('\x1b'), std::string::npos) << d;
    ASSERT_NE(d.front(), '\n') << d;
    ASSERT_NE(d.back(), '\n') << d;
    size_t pos = 0;  // no line that is a '%' separator
    while (pos <= d.size()) {
      size_t end = d.find('\n', pos);
      if (end == std::string::npos) end = d.size();
      const std::string line = d.substr(pos, end - pos);
      ASSERT_FALSE(!line.empty() && line[0] == '%' && line.find_first_not_of("% \t") == std::string::npos)
          << d;
      pos = end + 1;
    }
  }
}

TEST(Corpus, FortunesFormatParsedExactly) {
  TempDir dir;
  dir.write("tang300", "\x1b[32m《题》\x1b[m\n\x1b[33m作者：某\x1b[m\n床前明月光，\n%\n\n  二  \n\n%    \n%\n");
  dir.write("song100", "\x1b[1;36m词\x1b[0;31m牌\x1b[;m  \n\n第二段\n%\n    %%\n");
  dir.write("chinese", "no trailing separator\x1b");
  const Docs want = {"《题》\n作者：某\n床前明月光，", "  二", "词牌\n\n第二段", "    %%",
                     "no trailing separator"};
  EXPECT_EQ(llm0::fortunes_zh_documents(dir.path.string()), want);
}

TEST(Corpus, FortunesMissingFileNamesIt) {
  TempDir dir;
  dir.write("tang300", "a\n%\n");
  const std::string msg = error_of([&] { llm0::fortunes_zh_documents(dir.path.string()); });
  EXPECT_TRUE(contains(msg, (dir.path / "song100").string())) << msg;
  EXPECT_TRUE(contains(msg, "fortunes-zh")) << msg;
}

TEST(Corpus, SplitIsDeterministicDisjointAndAboutFivePercent) {
  const Docs docs = llm0::fortunes_zh_documents();
  const llm0::CorpusSplit a = llm0::split_documents(docs), b = llm0::split_documents(docs);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.validation, b.validation);
  EXPECT_EQ(a.train.size() + a.validation.size(), docs.size());
  const double frac = static_cast<double>(a.validation.size()) / docs.size();
  EXPECT_GT(frac, 0.035);
  EXPECT_LT(frac, 0.065);
  // Disjoint by text (so duplicates never straddle), and the split depends on the text alone:
  // a subset (some train, all validation documents) splits the same way.
  std::map<std::string, int> side;
  for (const auto& d : a.train) side[d] |= 1;
  for (const auto& d : a.validation) side[d] |= 2;
  for (const auto& [text, s] : side) ASSERT_NE(s, 3) << text;
  Docs subset(a.train.begin(), a.train.begin() + 500);
  subset.insert(subset.end(), a.validation.begin(), a.validation.end());
  const llm0::CorpusSplit again = llm0::split_documents(subset);
  EXPECT_EQ(again.train, Docs(a.train.begin(), a.train.begin() + 500));
  EXPECT_EQ(again.validation, a.validation);
  // Order within each side is the input order.
  Docs reversed(docs.rbegin(), docs.rend());
  const llm0::CorpusSplit r = llm0::split_documents(reversed);
  EXPECT_EQ(Docs(r.validation.rbegin(), r.validation.rend()), a.validation);
}

TEST(Corpus, SplitFractionIsRespectedAndTinyCorporaGetOneValidationDoc) {
  Docs docs;
  for (int i = 0; i < 20000; ++i) docs.push_back("doc " + std::to_string(i));
  const auto s20 = llm0::split_documents(docs, 0.2);
  EXPECT_NEAR(static_cast<double>(s20.validation.size()) / docs.size(), 0.2, 0.01);
  EXPECT_TRUE(llm0::split_documents(docs, 0.0).validation.empty());
  const auto tiny = llm0::split_documents({"one", "two", "three"});
  EXPECT_EQ(tiny.validation.size(), 1u);
  EXPECT_EQ(tiny.train.size(), 2u);
  EXPECT_EQ(llm0::split_documents({"only"}).train, Docs{"only"});
  EXPECT_EQ(llm0::split_documents({"same", "same"}).train, (Docs{"same", "same"}));
  EXPECT_TRUE(llm0::split_documents({}).train.empty());
  // Even a fraction that would send (almost) everything to validation leaves one text to train.
  const auto most = llm0::split_documents({"p", "q", "r", "p"}, 0.999999);
  EXPECT_FALSE(most.train.empty());
  EXPECT_FALSE(most.validation.empty());
  EXPECT_THROW(llm0::split_documents(docs, 1.0), llm0::Error);
  EXPECT_THROW(llm0::split_documents(docs, -0.1), llm0::Error);
}

TEST(Corpus, ReadTextFileBlankLineSeparated) {
  TempDir dir;
  const std::string p =
      dir.write("poems.txt", "\n\n第一首\n第二行\n\n  \t\n\nsecond doc\r\nline two\r\n\n\nlast \xff\xfe bytes");
  const Docs want = {"第一首\n第二行", "second doc\r\nline two\r", "last \xff\xfe bytes"};
  EXPECT_EQ(llm0::read_documents(p), want);
}

TEST(Corpus, ReadJsonl) {
  TempDir dir;
  const std::string p = dir.write(
      "c.jsonl", "{\"text\": \"床前明月光\\n疑是地上霜\"}\n\n{\"text\": \"\", \"id\": 2}\n{\"id\": 3, \"text\": \"a\\\"b\"}\n");
  const Docs want = {"床前明月光\n疑是地上霜", "a\"b"};
  EXPECT_EQ(llm0::read_documents(p), want);

  const std::string bad = dir.write("bad.jsonl", "{\"text\": \"ok\"}\n{\"text\": 5}\n");
  EXPECT_TRUE(contains(error_of([&] { llm0::read_documents(bad); }), bad + ":2")) << bad;
  const std::string broken = dir.write("broken.jsonl", "{\"text\": \"ok\"}\n\n{\"text\": \n");
  EXPECT_TRUE(contains(error_of([&] { llm0::read_documents(broken); }), broken + ":3"));
}

TEST(Corpus, ReadDirectoryRecursivelySortedByPath) {
  TempDir dir;
  dir.write("b.txt", "from b\n\nb two\n");
  dir.write("a/c.jsonl", "{\"text\": \"from a/c\"}\n");
  dir.write("a/empty.txt", "\n\n");
  const Docs want = {"from a/c", "from b", "b two"};
  EXPECT_EQ(llm0::read_documents(dir.path.string()), want);
}

TEST(Corpus, MissingOrEmptyCorpusNamesThePath) {
  TempDir dir;
  const std::string missing = (dir.path / "nope.txt").string();
  std::string msg = error_of([&] { llm0::read_documents(missing); });
  EXPECT_TRUE(contains(msg, missing) && contains(msg, "does not exist")) << msg;
  const std::string empty = dir.write("empty.txt", " \n\n\t\n");
  msg = error_of([&] { llm0::read_documents(empty); });
  EXPECT_TRUE(contains(msg, empty) && contains(msg, "no document")) << msg;
  fs::create_directories(dir.path / "sub");
  msg = error_of([&] { llm0::read_documents((dir.path / "sub").string()); });
  EXPECT_TRUE(contains(msg, "no document")) << msg;
}

TEST(Corpus, WriteJsonlRoundTripsAndReplacesInvalidUtf8) {
  TempDir dir;
  const std::string p = (dir.path / "out.jsonl").string();
  const Docs docs = {"床前明月光\n疑是地上霜", "quote \" backslash \\ tab \t", "emoji 😀"};
  llm0::write_jsonl(p, docs);
  EXPECT_EQ(llm0::read_documents(p), docs);
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  const std::string bytes = read_all(p);
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), '\n'), 3);
  // Overwrite: the new content replaces the old; invalid bytes become U+FFFD (EF BF BD).
  llm0::write_jsonl(p, {"bad \xff byte"});
  EXPECT_EQ(llm0::read_documents(p), Docs{"bad \xEF\xBF\xBD byte"});
  // Unwritable location: an error naming it, nothing created.
  const std::string nowhere = (dir.path / "no_such_dir" / "x.jsonl").string();
  EXPECT_TRUE(contains(error_of([&] { llm0::write_jsonl(nowhere, docs); }), nowhere));
  EXPECT_FALSE(fs::exists(dir.path / "no_such_dir"));
}

TEST(Corpus, Utf8CharCount) {
  EXPECT_EQ(llm0::utf8_char_count("床前明月光"), 5u);
  EXPECT_EQ(llm0::utf8_char_count("ab😀"), 3u);
  EXPECT_EQ(llm0::utf8_char_count(""), 0u);
}

TEST(Corpus, DataCommandWritesBothSplits) {
  ASSERT_TRUE(fs::exists(LLM0_CLI)) << "llm0 program not built: " << LLM0_CLI;
  TempDir dir;
  std::string text;
  for (int i = 0; i < 200; ++i) text += "文档 " + std::to_string(i) + "\n第二行\n\n";
  const std::string src = dir.write("in.txt", text);
  const std::string out = (dir.path / "prepared").string();
  const std::string cmd = std::string(LLM0_CLI) + " data --source " + src + " --output " + out +
                          " > " + (dir.path / "log").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_all((dir.path / "log").string());
  const Docs train = llm0::read_documents(out + "/train.jsonl");
  const Docs valid = llm0::read_documents(out + "/validation.jsonl");
  const auto want = llm0::split_documents(llm0::read_documents(src));
  EXPECT_EQ(train, want.train);
  EXPECT_EQ(valid, want.validation);
  EXPECT_TRUE(contains(read_all((dir.path / "log").string()), "200 documents"));
  // Missing source: non-zero exit, the path in the message, nothing written.
  const std::string bad = std::string(LLM0_CLI) + " data --source " + src + ".missing --output " +
                          out + "2 > " + (dir.path / "log2").string() + " 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  EXPECT_TRUE(contains(read_all((dir.path / "log2").string()), src + ".missing"));
  EXPECT_FALSE(fs::exists(out + "2"));
}
