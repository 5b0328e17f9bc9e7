// The explorer's training corpora (train_corpora.h).
#include "explore/train_corpora.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "core/json_parse.h"
#include "core/shipped_file.h"
#include "explore/explore_request.h"

namespace llm0::explore {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Counts {
  std::string version;  // sizes and times of the two files
  int64_t documents = 0, characters = 0;
};

std::string version_of(const std::string& dir) {
  std::string v;
  for (const char* f : {"train.jsonl", "validation.jsonl"}) {
    std::error_code ec;
    const fs::path p = fs::path(dir) / f;
    v += std::to_string(fs::file_size(p, ec)) + ":" +
         std::to_string(fs::last_write_time(p, ec).time_since_epoch().count()) + ";";
  }
  return v;
}

// Documents (one JSON line {"text": ...} each) and their characters, counted once per version.
Counts corpus_counts(const std::string& dir) {
  static std::mutex mu;
  static std::map<std::string, Counts> memo;
  const std::string version = version_of(dir);
  {
    std::lock_guard<std::mutex> lk(mu);
    if (const auto it = memo.find(dir); it != memo.end() && it->second.version == version) return it->second;
  }
  Counts c;
  c.version = version;
  for (const char* f : {"train.jsonl", "validation.jsonl"}) {
    std::ifstream in(fs::path(dir) / f, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      ++c.documents;
      const json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("text") && j["text"].is_string())
        for (unsigned char b : j["text"].get_ref<const std::string&>()) c.characters += (b & 0xC0) != 0x80;
    }
  }
  std::lock_guard<std::mutex> lk(mu);
  return memo[dir] = c;
}

}  // namespace

const std::vector<std::string>& corpus_sources() {
  static const std::vector<std::string> sources = {"fortunes-zh", "chinese-poetry"};
  return sources;
}

std::string corpus_dir(const std::string& runs_dir, const std::string& source, const std::string& param) {
  if (source == "fortunes-zh") return (fs::path(runs_dir) / "corpus").string();
  if (source == "chinese-poetry") return (fs::path(runs_dir) / "corpus-poetry").string();
  throw ExploreError(400, "bad_param", format("\"{}\" is not a corpus source (fortunes-zh, chinese-poetry)",
                     text_excerpt(source)), "", {{"param", param}});
}

bool corpus_ready(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "train.jsonl", ec) &&
         fs::is_regular_file(fs::path(dir) / "validation.jsonl", ec);
}

std::string default_corpus(const std::string& runs_dir) {
  return corpus_ready(corpus_dir(runs_dir, "chinese-poetry")) ? "chinese-poetry" : "fortunes-zh";
}

json corpora_json(const std::string& runs_dir) {
  json a = json::array();
  for (const std::string& source : corpus_sources()) {
    const std::string dir = corpus_dir(runs_dir, source);
    json c = {{"source", source}, {"dir", dir}, {"ready", corpus_ready(dir)}};
    if (c["ready"]) {
      const Counts n = corpus_counts(dir);
      c["documents"] = n.documents, c["characters"] = n.characters;
    }
    a.push_back(c);
  }
  return a;
}

std::vector<std::string> prepare_corpus_argv(const std::string& source, const std::string& dir,
                                             const std::string& llm0) {
  return {"bash", shipped_file("scripts/prepare_corpus.sh"), source, dir, llm0};
}

}  // namespace llm0::explore
