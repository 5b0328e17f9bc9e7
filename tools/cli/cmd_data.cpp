// `llm0 data`: prepares a corpus for training. Reads the default corpus (Debian's fortunes-zh), the
// npm package chinese-poetry (traditional -> simplified by OpenCC unless --keep-traditional) or a
// text file / .jsonl file / directory, splits it by document (deterministic, ~5% validation) and
// writes DIR/train.jsonl and DIR/validation.jsonl (JSON Lines, {"text": ...} per document).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "train/corpus.h"

namespace llm0::cli {
namespace {

struct DataOptions {
  std::string source = "fortunes-zh";
  std::string output;
  double validation_fraction = 0.05;
  std::string poetry_dir = kChinesePoetryDir;
  bool poetry_dir_given = false, keep_traditional = false;
};

// --poetry-dir and --keep-traditional apply to --source chinese-poetry only: refused elsewhere.
void check_poetry_flags(const DataOptions& opt) {
  if (opt.source == "chinese-poetry") return;
  LLM0_CHECK(!opt.poetry_dir_given, "--poetry-dir {} cannot apply: --source is '{}', not chinese-poetry",
             opt.poetry_dir, opt.source);
  LLM0_CHECK(!opt.keep_traditional,
             "--keep-traditional cannot apply: --source is '{}', not chinese-poetry", opt.source);
}

std::vector<std::string> source_documents(const DataOptions& opt) {
  if (opt.source == "fortunes-zh") return fortunes_zh_documents();
  if (opt.source == "chinese-poetry") {
    std::vector<std::string> docs = chinese_poetry_documents(opt.poetry_dir, opt.keep_traditional);
    std::printf("chinese-poetry from %s, %s\n", opt.poetry_dir.c_str(),
                opt.keep_traditional ? "traditional characters kept"
                                     : "traditional -> simplified by OpenCC (t2s.json)");
    return docs;
  }
  return read_documents(opt.source);
}

void print_split(const char* name, const std::vector<std::string>& docs, const std::string& path) {
  size_t chars = 0, bytes = 0;
  for (const std::string& d : docs) {
    chars += utf8_char_count(d);
    bytes += d.size();
  }
  std::printf("%-10s %8zu documents %10zu characters %10zu bytes -> %s\n", name, docs.size(), chars,
              bytes, path.c_str());
}

void run_data(const DataOptions& opt) {
  check_poetry_flags(opt);
  const std::vector<std::string> docs = source_documents(opt);
  const CorpusSplit split = split_documents(docs, opt.validation_fraction);
  std::error_code ec;
  std::filesystem::create_directories(opt.output, ec);
  LLM0_CHECK(!ec && std::filesystem::is_directory(opt.output),
             "cannot create output directory '{}': {}", opt.output, ec.message());
  const std::string train_path = (std::filesystem::path(opt.output) / "train.jsonl").string();
  const std::string valid_path = (std::filesystem::path(opt.output) / "validation.jsonl").string();
  write_jsonl(train_path, split.train);
  write_jsonl(valid_path, split.validation);
  std::printf("source %s: %zu documents\n", opt.source.c_str(), docs.size());
  print_split("train", split.train, train_path);
  print_split("validation", split.validation, valid_path);
  if (split.validation.empty())
    std::printf("note: the validation split is empty (corpus of one distinct document)\n");
}

}  // namespace

void register_data(CLI::App& app) {
  auto opt = std::make_shared<DataOptions>();
  CLI::App* sub = app.add_subcommand(
      "data", "Prepare a corpus: split by document into DIR/train.jsonl and DIR/validation.jsonl");
  sub->add_option("--source", opt->source,
                  "'fortunes-zh' (Debian's fortunes-zh: tang300, song100, chinese), "
                  "'chinese-poetry' (the npm package: Tang and Song shi, Song ci, Shijing, Chuci; "
                  "scripts/poetry_npm_install.sh installs it) or a text file (blank-line separated "
                  "documents), a .jsonl file, or a directory of them")
      ->capture_default_str();
  sub->add_option("--poetry-dir", opt->poetry_dir,
                  "The chinese-poetry package's folder (holding dist/), for --source chinese-poetry")
      ->capture_default_str()
      ->each([opt](const std::string&) { opt->poetry_dir_given = true; });
  sub->add_flag("--keep-traditional", opt->keep_traditional,
                "--source chinese-poetry: keep the traditional characters (no OpenCC conversion)");
  sub->add_option("--output", opt->output, "Output directory (created if missing)")->required();
  sub->add_option("--validation-fraction", opt->validation_fraction,
                  "Fraction of documents for validation, chosen by a hash of each document")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.99));
  add_threads_option(sub);
  sub->callback([opt] { run_data(*opt); });
}

}  // namespace llm0::cli
