// The chinese-poetry corpus (train/corpus.h chinese_poetry_documents, train/opencc_t2s.h, `llm0
// data --source chinese-poetry`) on a small fixture in the npm package's own JSON layout (dist/
// quantangshi/poet.tang.N.json ...), written by the test: the documents (title, author, lines),
// traditional -> simplified by OpenCC, --keep-traditional, the files left out, and bad input.
// The expected simplified forms are the published ones of the 通用规范汉字表 (2013) for these
// characters (風风 鳥鸟 夢梦 來来 說说 長长 覺觉 曉晓 處处 聞闻 聲声 靜静 舉举 頭头 鄉乡).
// OpenCC also converts by phrase where one traditional character has several simplified
// readings (乾坤 keeps 乾 while 乾燥 becomes 干燥; 著作 keeps 著): those depend on its phrase
// tables and are not asserted here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "core/check.h"
#include "error_message.h"
#include "train/corpus.h"
#include "train/opencc_t2s.h"

namespace fs = std::filesystem;
using Docs = std::vector<std::string>;
using llm0::testing_fixtures::CmdOut;
using llm0::testing_fixtures::contains;
using llm0::testing_fixtures::error_of;
using llm0::testing_fixtures::quote;
using llm0::testing_fixtures::run_cli;

namespace {

// A fresh package folder per test (PACKAGE/dist/...), removed at the end.
struct PoetryPackage {
  fs::path root, package;
  PoetryPackage() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root = fs::temp_directory_path() / ("llm0_poetry_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(root);
    package = root / "chinese-poetry";
    write_fixture();
  }
  ~PoetryPackage() { fs::remove_all(root); }

  void write(const std::string& rel, const std::string& bytes) const {
    const fs::path p = package / "dist" / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }

  // One file per collection the reader takes, plus files it must leave out. Tang and Song shi in
  // traditional characters, as in the package; the ci, 诗经 and 楚辞 files simplified.
  void write_fixture() const {
    write("quantangshi/poet.tang.0.json",
          R"([{"author": "李白", "paragraphs": ["床前明月光，疑是地上霜。", "舉頭望明月，低頭思故鄉。"],
               "title": "靜夜思", "id": "a"},
              {"author": "", "paragraphs": [], "title": "  ", "id": "empty"}])");
    write("quantangshi/poet.tang.1000.json",  // after 900: files go by number, not by name
          R"([{"author": "無名", "paragraphs": ["長夜說夢"], "title": "三", "id": null}])");
    write("quantangshi/poet.tang.900.json",
          R"([{"author": "孟浩然", "paragraphs": ["春眠不覺曉，處處聞啼鳥。", "夜來風雨聲，花落知多少。"],
               "title": "春曉", "tags": ["五言绝句"]}])");
    write("quantangshi/poet.song.0.json",
          R"([{"author": "宋人", "paragraphs": ["  鳥飛  ", "", "\t"], "title": "宋詩"}])");
    write("songci/ci.song.0.json",
          R"([{"author": "苏轼", "paragraphs": ["明月几时有？把酒问青天。"], "rhythmic": "水调歌头"}])");
    write("wudaishici/huajianji/huajianji-1-juan.json",
          R"([{"title": "菩萨蛮 其一", "rhythmic": "菩萨蛮", "author": "温庭筠",
               "paragraphs": ["小山重叠金明灭，鬓云欲度香腮雪。"], "notes": ["1.小山--眉样"]}])");
    write("wudaishici/nantang/poetrys.json",
          R"([{"rhythmic": "应天长", "author": "李璟", "paragraphs": ["一钩初月临妆镜"],
               "title": "应天长·一钩初月临妆镜"}])");
    write("shijing/shijing.json",
          R"([{"title": "关雎", "chapter": "国风", "section": "周南", "content": ["关关雎鸠，在河之洲。"]}])");
    write("chuci/chuci.json",
          R"([{"title": "离骚", "section": "离骚", "author": "屈原", "content": ["帝高阳之苗裔兮"]}])");
    // Left out: other editions, anthologies, tone patterns, the error/ files, the preface.
    const std::string other = R"([{"author": "X", "paragraphs": ["不应读到"], "title": "别处"}])";
    for (const char* rel : {"quantangshi/唐诗三百首.json", "quantangshi/error/poet.tang.0.json",
                            "strains/json/poet.tang.0.json", "yudingquantangshi/json/001.json",
                            "songci/宋词三百首.json", "wudaishici/huajianji/huajianji-0-preface.json"})
      write(rel, other);
  }
};

const Docs kSimplified = {
    "静夜思\n李白\n床前明月光，疑是地上霜。\n举头望明月，低头思故乡。",
    "春晓\n孟浩然\n春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。",
    "三\n无名\n长夜说梦",
    "宋诗\n宋人\n鸟飞",
    "水调歌头\n苏轼\n明月几时有？把酒问青天。",
    "菩萨蛮 其一\n温庭筠\n小山重叠金明灭，鬓云欲度香腮雪。",
    "应天长·一钩初月临妆镜\n李璟\n一钩初月临妆镜",
    "关雎\n关关雎鸠，在河之洲。",
    "离骚\n屈原\n帝高阳之苗裔兮",
};

}  // namespace

TEST(OpenccT2s, PublishedSimplifiedFormsAndPassThrough) {
  const llm0::OpenccT2s t2s;
  EXPECT_EQ(t2s.convert("風鳥夢來說長"), "风鸟梦来说长");
  EXPECT_EQ(t2s.convert("床前明月光"), "床前明月光");  // already simplified: unchanged
  EXPECT_EQ(t2s.convert("a 1\n靜,\t\n"), "a 1\n静,\t\n");  // ASCII and newlines pass through
  EXPECT_EQ(t2s.convert(""), "");
}

TEST(OpenccT2s, MissingOrInvalidConfigurationIsNamed) {
  const std::string missing = "/nonexistent/opencc/t2s.json";
  std::string msg = error_of([&] { llm0::OpenccT2s t2s(missing); });
  EXPECT_TRUE(contains(msg, missing)) << msg;
  EXPECT_TRUE(contains(msg, "libopencc")) << msg;
  const fs::path bad = fs::temp_directory_path() / ("llm0_opencc_bad_" + std::to_string(::getpid()) + ".json");
  std::ofstream(bad) << "not json";
  msg = error_of([&] { llm0::OpenccT2s t2s(bad.string()); });
  fs::remove(bad);
  EXPECT_TRUE(contains(msg, bad.string())) << msg;
}

TEST(CorpusPoetry, DocumentsConvertedToSimplified) {
  const PoetryPackage pkg;
  EXPECT_EQ(llm0::chinese_poetry_documents(pkg.package.string()), kSimplified);
}

TEST(CorpusPoetry, KeepTraditionalSkipsTheConversion) {
  const PoetryPackage pkg;
  Docs want = kSimplified;
  want[0] = "靜夜思\n李白\n床前明月光，疑是地上霜。\n舉頭望明月，低頭思故鄉。";
  want[1] = "春曉\n孟浩然\n春眠不覺曉，處處聞啼鳥。\n夜來風雨聲，花落知多少。";
  want[2] = "三\n無名\n長夜說夢";
  want[3] = "宋詩\n宋人\n鳥飛";
  // No OpenCC at all: a missing configuration does not matter.
  EXPECT_EQ(llm0::chinese_poetry_documents(pkg.package.string(), true, "/nonexistent/t2s.json"), want);
}

TEST(CorpusPoetry, MissingPackageSaysHowToInstallIt) {
  const PoetryPackage pkg;
  const std::string dir = (pkg.root / "not-installed").string();
  const std::string msg = error_of([&] { llm0::chinese_poetry_documents(dir); });
  EXPECT_TRUE(contains(msg, dir)) << msg;
  EXPECT_TRUE(contains(msg, "scripts/poetry_npm_install.sh")) << msg;
}

TEST(CorpusPoetry, MissingCollectionFileIsNamed) {
  const PoetryPackage pkg;
  fs::remove(pkg.package / "dist/chuci/chuci.json");
  const std::string msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, "dist/chuci/chuci.json")) << msg;
  EXPECT_TRUE(contains(msg, "scripts/poetry_npm_install.sh")) << msg;
}

TEST(CorpusPoetry, BadJsonAndBadFieldsNameTheFile) {
  const PoetryPackage pkg;
  const std::string file = (pkg.package / "dist/songci/ci.song.0.json").string();
  pkg.write("songci/ci.song.0.json", R"([{"author": "苏轼", "paragraphs": ["明月)");
  std::string msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, file)) << msg;
  EXPECT_TRUE(contains(msg, "not valid JSON")) << msg;

  pkg.write("songci/ci.song.0.json", R"([{"paragraphs": ["a"]}, {"paragraphs": "one string"}])");
  msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, file + "': poem [1] has no \"paragraphs\"")) << msg;

  pkg.write("songci/ci.song.0.json", R"([{"paragraphs": ["a", 7]}])");
  msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, file + "': poem [0]: \"paragraphs\"[1] is not a string")) << msg;

  pkg.write("songci/ci.song.0.json", R"([{"paragraphs": ["a"], "author": 3}])");
  msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, file + "': poem [0]: field \"author\" is not a string")) << msg;

  pkg.write("songci/ci.song.0.json", R"({"paragraphs": ["a"]})");
  msg = error_of([&] { llm0::chinese_poetry_documents(pkg.package.string()); });
  EXPECT_TRUE(contains(msg, file + "' is not a JSON array of poems")) << msg;
}

TEST(CorpusPoetry, DataCommandSplitsTheConvertedPoems) {
  ASSERT_TRUE(fs::exists(LLM0_CLI)) << "llm0 program not built: " << LLM0_CLI;
  const PoetryPackage pkg;
  const fs::path out = pkg.root / "corpus";
  const CmdOut r = run_cli("data --source chinese-poetry --poetry-dir " + quote(pkg.package.string()) +
                               " --output " + quote(out.string()),
                           pkg.root / "err.txt");
  ASSERT_EQ(r.rc, 0) << r.err;
  const llm0::CorpusSplit want = llm0::split_documents(kSimplified);
  EXPECT_EQ(llm0::read_documents((out / "train.jsonl").string()), want.train);
  EXPECT_EQ(llm0::read_documents((out / "validation.jsonl").string()), want.validation);
  EXPECT_TRUE(contains(r.out, "source chinese-poetry: 9 documents")) << r.out;
  EXPECT_TRUE(contains(r.out, "traditional -> simplified by OpenCC")) << r.out;
}

TEST(CorpusPoetry, DataCommandRefusesBadInputAndWritesNothing) {
  ASSERT_TRUE(fs::exists(LLM0_CLI)) << "llm0 program not built: " << LLM0_CLI;
  const PoetryPackage pkg;
  const fs::path out = pkg.root / "corpus";
  const fs::path err = pkg.root / "err.txt";
  CmdOut r = run_cli("data --source chinese-poetry --poetry-dir " + quote((pkg.root / "none").string()) +
                         " --output " + quote(out.string()),
                     err);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "scripts/poetry_npm_install.sh")) << r.err;
  // The poetry options apply to --source chinese-poetry only.
  r = run_cli("data --source fortunes-zh --keep-traditional --output " + quote(out.string()), err);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "--keep-traditional cannot apply: --source is 'fortunes-zh'")) << r.err;
  r = run_cli("data --source fortunes-zh --poetry-dir x --output " + quote(out.string()), err);
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "--poetry-dir x cannot apply")) << r.err;
  EXPECT_FALSE(fs::exists(out));
}
