// The chinese-poetry corpus: the npm package chinese-poetry 2.0.1 (MIT; JSON from
// github.com/chinese-poetry/chinese-poetry), one document per poem, traditional characters
// converted to simplified by OpenCC (train/opencc_t2s.h). Its Tang and Song shi files are in
// traditional characters, its ci, 诗经 and 楚辞 mostly simplified (t2s leaves simplified text as
// it is). Left out: the package's error/, strains/ (tone patterns) and rank/ files, the other
// edition of the Tang poems (yudingquantangshi) and the anthologies that repeat poems already read
// (唐诗三百首, 宋词三百首), so no poem appears twice in different spellings across the split.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/json_file.h"
#include "train/corpus.h"
#include "train/opencc_t2s.h"

namespace llm0 {
namespace fs = std::filesystem;
namespace {

// The files of one collection: dist/DIR/PREFIX + KEY + SUFFIX, KEY made of [0-9a-z] (maybe empty).
struct Collection {
  const char* dir;
  const char* prefix;
  const char* suffix;
};

const Collection kCollections[] = {
    {"quantangshi", "poet.tang.", ".json"},                // 全唐诗, 57,607 poems
    {"quantangshi", "poet.song.", ".json"},                // 全宋诗, 254,248 poems
    {"songci", "ci.song.", ".json"},                       // 宋词, 21,053 ci
    {"wudaishici/huajianji", "huajianji-", "-juan.json"},  // 花间集, 497 ci
    {"wudaishici/nantang", "poetrys.json", ""},            // 南唐二主词
    {"shijing", "shijing.json", ""},                       // 诗经
    {"chuci", "chuci.json", ""},                           // 楚辞
};

const char* const kInstall = "scripts/poetry_npm_install.sh";

// KEY of `name` in collection `c`, or false when the name is not one of its files.
bool file_key(const Collection& c, const std::string& name, std::string& key) {
  const std::string prefix = c.prefix, suffix = c.suffix;
  if (name.size() < prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  key = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return std::all_of(key.begin(), key.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch)) || (ch >= 'a' && ch <= 'z');
  });
}

// The number `key` starts with (its first 18 digits at most), or ~0 when it starts with none.
unsigned long long leading_number(const std::string& key) {
  size_t n = 0;
  while (n < key.size() && n < 18 && std::isdigit(static_cast<unsigned char>(key[n]))) ++n;
  return n == 0 ? ~0ull : std::stoull(key.substr(0, n));
}

// The collection's files in the order of their keys' leading numbers (then by key: 1000 after
// 900, "2019y" after "2000", "x" after every number). Throws when there is none.
std::vector<fs::path> collection_files(const fs::path& dist, const Collection& c) {
  struct Entry {
    unsigned long long number;
    std::string key;
    fs::path path;
  };
  std::vector<Entry> files;
  std::error_code ec;
  for (fs::directory_iterator it(dist / c.dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string key;
    if (!it->is_regular_file() || !file_key(c, it->path().filename().string(), key)) continue;
    files.push_back({leading_number(key), key, it->path()});
  }
  LLM0_CHECK(!files.empty(),
             "the chinese-poetry package under '{}' has no file {}{}{} (reinstall it: {})",
             dist.parent_path().string(), (fs::path("dist") / c.dir / c.prefix).string(),
             *c.suffix ? "N" : "", c.suffix, kInstall);
  std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) {
    return a.number != b.number ? a.number < b.number : a.key < b.key;
  });
  std::vector<fs::path> paths;
  for (Entry& e : files) paths.push_back(std::move(e.path));
  return paths;
}

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// The string field `key` of `poem` ("" when absent); throws when it is there but not a string.
std::string string_field(const nlohmann::json& poem, const char* key, const std::string& where) {
  const auto it = poem.find(key);
  if (it == poem.end() || it->is_null()) return "";
  LLM0_CHECK(it->is_string(), "{}: field \"{}\" is not a string", where, key);
  return it->get<std::string>();
}

// One poem as a document: title (or tune), author, lines; "" when it holds no text.
std::string poem_document(const nlohmann::json& poem, const std::string& where) {
  LLM0_CHECK(poem.is_object(), "{} is not an object", where);
  std::string title = string_field(poem, "title", where);
  if (trimmed(title).empty()) title = string_field(poem, "rhythmic", where);
  const char* lines_key = poem.contains("paragraphs") ? "paragraphs" : "content";
  const auto lines = poem.find(lines_key);
  LLM0_CHECK(lines != poem.end() && lines->is_array(),
             "{} has no \"paragraphs\" (or \"content\") array of lines", where);
  std::vector<std::string> parts = {title, string_field(poem, "author", where)};
  for (size_t i = 0; i < lines->size(); ++i) {
    const nlohmann::json& line = (*lines)[i];
    LLM0_CHECK(line.is_string(), "{}: \"{}\"[{}] is not a string", where, lines_key, i);
    parts.push_back(line.get<std::string>());
  }
  std::string doc;
  for (const std::string& part : parts) {
    const std::string t = trimmed(part);
    if (t.empty()) continue;
    if (!doc.empty()) doc += '\n';
    doc += t;
  }
  return doc;
}

void append_poetry_file(const fs::path& path, const OpenccT2s* t2s,
                        std::vector<std::string>& docs) {
  const nlohmann::json poems = read_json_file(path.string(), "chinese-poetry file");
  LLM0_CHECK(poems.is_array(), "chinese-poetry file '{}' is not a JSON array of poems",
             path.string());
  for (size_t i = 0; i < poems.size(); ++i) {
    std::string doc = poem_document(
        poems[i], "chinese-poetry file '" + path.string() + "': poem [" + std::to_string(i) + "]");
    if (doc.empty()) continue;
    docs.push_back(t2s ? t2s->convert(doc) : std::move(doc));
  }
}

}  // namespace

std::vector<std::string> chinese_poetry_documents(const std::string& package_dir,
                                                  bool keep_traditional,
                                                  const std::string& opencc_config) {
  const fs::path dist = fs::path(package_dir) / "dist";
  std::error_code ec;
  LLM0_CHECK(
      fs::is_directory(dist, ec),
      "the npm package chinese-poetry is not installed in '{}' (no dist/ folder there): install "
      "it with {} (or name its folder with --poetry-dir)",
      package_dir, kInstall);
  std::vector<fs::path> files;
  for (const Collection& c : kCollections)
    for (fs::path& f : collection_files(dist, c)) files.push_back(std::move(f));
  std::unique_ptr<OpenccT2s> t2s;
  if (!keep_traditional)
    t2s = std::make_unique<OpenccT2s>(opencc_config.empty() ? opencc_t2s_config() : opencc_config);
  std::vector<std::string> docs;
  for (const fs::path& f : files) append_poetry_file(f, t2s.get(), docs);
  LLM0_CHECK(!docs.empty(), "no poem in the chinese-poetry package under '{}'", package_dir);
  return docs;
}

}  // namespace llm0
