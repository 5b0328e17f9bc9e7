// `llm0 tokenizer train|encode|decode`: trains a byte-level BPE tokenizer on a corpus and writes
// tokenizer.json (Hugging Face format); encodes text to ids; decodes ids to text.
// See src/tokenizer/tokenizer.h for the algorithm and the id layout.
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "tokenizer/tokenizer.h"
#include "train/corpus.h"

namespace llm0::cli {
namespace {

struct TokenizerOptions {
  std::string data = "fortunes-zh";
  int vocab_size = 4096;
  std::string output = "tokenizer.json";
  std::string tokenizer;
  std::string text;
  std::string ids;
};

void run_train(const TokenizerOptions& opt) {
  const std::vector<std::string> docs =
      opt.data == "fortunes-zh" ? fortunes_zh_documents() : read_documents(opt.data);
  size_t bytes = 0;
  for (const std::string& d : docs) bytes += d.size();
  const auto t0 = std::chrono::steady_clock::now();
  const Tokenizer tok = Tokenizer::train(docs, opt.vocab_size);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t tokens = 0;
  for (const std::string& d : docs) tokens += tok.encode(d).size();
  tok.save(opt.output);
  std::printf("corpus %s: %zu documents, %zu bytes\n", opt.data.c_str(), docs.size(), bytes);
  std::printf("trained vocab %d (%zu merges) in %.2f s; corpus = %zu tokens (%.2f bytes/token)\n",
              tok.vocab_size(), tok.merges().size(), seconds, tokens,
              tokens ? static_cast<double>(bytes) / tokens : 0.0);
  std::printf("wrote %s\n", opt.output.c_str());
}

void run_encode(const TokenizerOptions& opt) {
  const Tokenizer tok = Tokenizer::load(opt.tokenizer);
  const std::vector<int> ids = tok.encode(opt.text);
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
  std::printf("%s\n", line.c_str());
}

void run_decode(const TokenizerOptions& opt) {
  const Tokenizer tok = Tokenizer::load(opt.tokenizer);
  std::istringstream in(opt.ids);
  std::vector<int> ids;
  std::string word;
  while (in >> word) {
    size_t used = 0;
    int id = -1;
    try {
      id = std::stoi(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    LLM0_CHECK(used == word.size(), "--ids: '{}' is not an integer token id", word);
    ids.push_back(id);
  }
  const std::string text = tok.decode(ids);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::printf("\n");
}

}  // namespace

void register_tokenizer(CLI::App& app) {
  auto opt = std::make_shared<TokenizerOptions>();
  CLI::App* cmd = app.add_subcommand("tokenizer", "Byte-level BPE tokenizer: train, encode, decode");
  cmd->require_subcommand(1);

  CLI::App* train = cmd->add_subcommand("train", "Train a tokenizer on a corpus, write tokenizer.json");
  train->add_option("--data", opt->data,
                    "'fortunes-zh' (the default corpus) or a text file, .jsonl file or directory")
      ->capture_default_str();
  train->add_option("--vocab-size", opt->vocab_size,
                    "Tokens in all: 256 bytes + merges + <|endoftext|>")
      ->capture_default_str();
  train->add_option("--output", opt->output, "Where to write tokenizer.json")->capture_default_str();
  add_threads_option(train);
  train->callback([opt] { run_train(*opt); });

  CLI::App* encode = cmd->add_subcommand("encode", "Print the token ids of a text, space-separated");
  encode->add_option("--tokenizer", opt->tokenizer, "tokenizer.json")->required();
  encode->add_option("--text", opt->text, "Text to encode")->required();
  add_threads_option(encode);
  encode->callback([opt] { run_encode(*opt); });

  CLI::App* decode = cmd->add_subcommand("decode", "Print the text of space-separated token ids");
  decode->add_option("--tokenizer", opt->tokenizer, "tokenizer.json")->required();
  decode->add_option("--ids", opt->ids, "Token ids, e.g. \"1 2 3\"")->required();
  add_threads_option(decode);
  decode->callback([opt] { run_decode(*opt); });
}

}  // namespace llm0::cli
