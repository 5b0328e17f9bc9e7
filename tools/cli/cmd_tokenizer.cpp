// `llm0 tokenizer train|encode|decode|chat`: trains a byte-level BPE tokenizer on a corpus and writes
// tokenizer.json (Hugging Face format); encodes text to ids; decodes ids to text. encode --input
// reads many texts (a .jsonl of {"text": ...}, one per line) and prints one line of ids per text;
// decode --input reads one line of ids per text and prints each text as a JSON string (newlines
// and control characters escaped, invalid UTF-8 as U+FFFD); --stats prints load and encode times.
// chat renders a conversation with a model directory's own chat template (src/chat/).
// See src/tokenizer/tokenizer.h for the algorithm and the id layout.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "common.h"
#include "core/check.h"
#include "core/json_parse.h"
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
  std::string input;                 // encode: .jsonl of texts; decode: one line of ids per text
  bool add_special_tokens = false;   // encode: the post_processor's ids (e.g. BOS) too
  bool skip_special_tokens = false;  // decode: leave out the added tokens marked special
  bool stats = false;                // print load / encode seconds and tokens/s to stderr
  std::string model;                 // chat: the model directory whose chat template renders
  std::string messages;              // chat: a JSON file of messages
  bool add_generation_prompt = false;
  std::string kwargs;                // chat: a JSON object of more template variables
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string ids_line(const std::vector<int>& ids) {
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
  return line;
}

std::vector<int> parse_ids(const std::string& text) {
  std::istringstream in(text);
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
  return ids;
}

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
  LLM0_CHECK(opt.text.empty() != opt.input.empty(), "tokenizer encode needs exactly one of --text and --input");
  auto t0 = std::chrono::steady_clock::now();
  const Tokenizer tok = Tokenizer::load(opt.tokenizer);
  const double load_s = seconds_since(t0);
  const std::vector<std::string> texts = opt.input.empty() ? std::vector<std::string>{opt.text}
                                                           : read_documents(opt.input);
  std::vector<std::vector<int>> all;
  all.reserve(texts.size());
  size_t bytes = 0, tokens = 0;
  t0 = std::chrono::steady_clock::now();
  for (const std::string& text : texts) {
    all.push_back(opt.add_special_tokens ? tok.encode_with_special_tokens(text) : tok.encode(text));
    bytes += text.size(), tokens += all.back().size();
  }
  const double encode_s = seconds_since(t0);
  for (const auto& ids : all) std::printf("%s\n", ids_line(ids).c_str());
  if (opt.stats)
    std::fprintf(stderr, "load %.3f s; encode %zu texts, %zu bytes -> %zu tokens in %.4f s (%.0f tokens/s)\n",
                 load_s, texts.size(), bytes, tokens, encode_s, encode_s > 0 ? tokens / encode_s : 0.0);
}

void run_decode(const TokenizerOptions& opt) {
  LLM0_CHECK(opt.ids.empty() != opt.input.empty(), "tokenizer decode needs exactly one of --ids and --input");
  const Tokenizer tok = Tokenizer::load(opt.tokenizer);
  if (opt.input.empty()) {
    const std::string text = tok.decode(parse_ids(opt.ids), opt.skip_special_tokens);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::printf("\n");
    return;
  }
  std::ifstream in(opt.input);
  LLM0_CHECK(in.good(), "cannot read --input '{}'", opt.input);
  std::string line;
  while (std::getline(in, line)) {
    const std::string text = tok.decode(parse_ids(line), opt.skip_special_tokens);
    const std::string quoted = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", quoted.c_str());
  }
}

// `llm0 tokenizer chat`: the text the model's chat template makes of a conversation, written as
// it is (no newline added), as transformers' apply_chat_template(tokenize=False) returns it.
void run_chat(const TokenizerOptions& opt) {
  const std::optional<chat::ChatTemplate> t = chat::load_chat_template(opt.model);
  LLM0_CHECK(t.has_value(), "{} has no chat template (no chat_template.jinja, no chat_template in "
             "tokenizer_config.json); llm0 serve renders such a model's chats with its plain template", opt.model);
  std::ifstream in(opt.messages, std::ios::binary);
  LLM0_CHECK(in.good(), "cannot read --messages '{}'", opt.messages);
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json messages = parse_json<nlohmann::ordered_json>(text.str(), "--messages " + opt.messages);
  if (messages.is_object() && messages.contains("messages")) messages = messages["messages"];
  LLM0_CHECK(messages.is_array(), "--messages {}: expected a JSON list of messages (or an object with "
             "\"messages\")", opt.messages);
  const nlohmann::ordered_json kwargs = opt.kwargs.empty() ? nlohmann::ordered_json(nullptr)
                                        : parse_json<nlohmann::ordered_json>(opt.kwargs, "--kwargs");
  const std::string out = t->render(messages, opt.add_generation_prompt, kwargs);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

void register_tokenizer(CLI::App& app) {
  auto opt = std::make_shared<TokenizerOptions>();
  CLI::App* cmd = app.add_subcommand("tokenizer", "Byte-level BPE tokenizer: train, encode, decode; a model's chat template");
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
  encode->add_option("--text", opt->text, "Text to encode");
  encode->add_option("--input", opt->input, "Texts to encode: a .jsonl file of {\"text\": ...} lines "
                     "(one line of ids printed per text)");
  encode->add_flag("--add-special-tokens", opt->add_special_tokens,
                   "Add the ids the tokenizer.json's post_processor puts around the text (e.g. BOS)");
  encode->add_flag("--stats", opt->stats, "Print the load and encode times to stderr");
  add_threads_option(encode);
  encode->callback([opt] { run_encode(*opt); });

  CLI::App* decode = cmd->add_subcommand("decode", "Print the text of space-separated token ids");
  decode->add_option("--tokenizer", opt->tokenizer, "tokenizer.json")->required();
  decode->add_option("--ids", opt->ids, "Token ids, e.g. \"1 2 3\"");
  decode->add_option("--input", opt->input, "A file of token ids, one text per line (each text "
                     "printed as a JSON string)");
  decode->add_flag("--skip-special-tokens", opt->skip_special_tokens,
                   "Leave out the added tokens marked special (e.g. <s>)");
  add_threads_option(decode);
  decode->callback([opt] { run_decode(*opt); });

  CLI::App* chat = cmd->add_subcommand("chat", "Print the text a model's own chat template makes of a "
                                       "conversation (as transformers' apply_chat_template)");
  chat->add_option("--model", opt->model, "Model directory with tokenizer_config.json (chat_template) "
                   "or chat_template.jinja")->required();
  chat->add_option("--messages", opt->messages, "JSON file: a list of {\"role\", \"content\"} messages")
      ->required();
  chat->add_flag("--add-generation-prompt", opt->add_generation_prompt,
                 "End with the start of an assistant turn (add_generation_prompt=True)");
  chat->add_option("--kwargs", opt->kwargs, "More template variables as a JSON object, e.g. "
                   "'{\"enable_thinking\": false}'");
  chat->callback([opt] { run_chat(*opt); });
}

}  // namespace llm0::cli
