// `llm0 data`: prepares a corpus for training. Reads the default corpus (Debian's fortunes-zh) or
// a text file / .jsonl file / directory, splits it by document (deterministic, ~5% validation)
// and writes DIR/train.jsonl and DIR/validation.jsonl (JSON Lines, {"text": ...} per document).
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
};

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
  const std::vector<std::string> docs =
      opt.source == "fortunes-zh" ? fortunes_zh_documents() : read_documents(opt.source);
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
                  "'fortunes-zh' (Debian's fortunes-zh: tang300, song100, chinese) or a text file "
                  "(blank-line separated documents), a .jsonl file, or a directory of them")
      ->capture_default_str();
  sub->add_option("--output", opt->output, "Output directory (created if missing)")->required();
  sub->add_option("--validation-fraction", opt->validation_fraction,
                  "Fraction of documents for validation, chosen by a hash of each document")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.99));
  add_threads_option(sub);
  sub->callback([opt] { run_data(*opt); });
}

}  // namespace llm0::cli
