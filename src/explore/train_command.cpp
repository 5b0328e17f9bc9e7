// The `llm0 train` argv of a page-started run and its shell text (train_command.h).
#include "explore/train_command.h"

#include <cctype>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "train/train_options.h"

namespace llm0::explore {

namespace {

// A number as its shortest round-trip text (0.1 -> "0.1", not "0.10000000000000001"): the child
// parses back the very double the request gave.
std::string number_text(double v) {
  if (v == (double)(int64_t)v) return std::to_string((int64_t)v);
  return nlohmann::json(v).dump();
}

// `--name value`, or `--name=value` for a value starting with '-' (which the option parser would
// otherwise take for an option).
void add(std::vector<std::string>& a, const std::string& name, const std::string& value) {
  if (!value.empty() && value[0] == '-') return a.push_back(name + "=" + value);
  a.push_back(name), a.push_back(value);
}

}  // namespace

std::vector<std::string> train_argv(const TrainCommand& c) {
  std::vector<std::string> a = {"llm0", "train", "--config", c.config, "--data", c.data, "--out", c.out};
  if (c.minutes > 0) a.insert(a.end(), {"--time-limit-minutes", number_text(c.minutes)});
  if (c.max_steps > 0) a.insert(a.end(), {"--max-steps", std::to_string(c.max_steps)});
  a.insert(a.end(), {"--seed", std::to_string(c.seed), "--dropout", number_text(c.dropout),
                     "--threads", std::to_string(c.threads), "--log-every", "1"});
  // The trainer's default sequence (256 tokens) does not fit a short-context preset (llm0-tiny: 64).
  if (c.config_context > 0 && c.config_context < TrainOptions{}.seq_len)
    a.insert(a.end(), {"--seq-len", std::to_string(c.config_context)});
  if (!c.precision.empty()) a.insert(a.end(), {"--precision", c.precision});
  for (const std::string& p : c.prompts) add(a, "--sample-prompt", p);
  if (!c.attention_text.empty()) add(a, "--attention-text", c.attention_text);
  return a;
}

std::vector<std::string> resume_argv(const std::string& data, const std::string& out, int threads,
                                     const std::vector<std::string>& first) {
  std::vector<std::string> a = {"llm0", "train", "--data", data, "--out", out, "--resume", out,
                                "--threads", std::to_string(threads), "--log-every", "1"};
  for (const char* name : {"--sample-prompt", "--sample-tokens", "--attention-text"})
    for (const std::string& v : option_values(first, name)) add(a, name, v);
  return a;
}

std::vector<std::string> start_record_argv(const nlohmann::json& records) {
  for (const nlohmann::json& r : records) {
    if (r.value("event", nlohmann::json()) != "start" || !r.contains("data") || !r["data"].is_string()) continue;
    std::vector<std::string> a = {"llm0", "train", "--data=" + r["data"].get<std::string>()};
    if (r.contains("sample_prompts") && r["sample_prompts"].is_array() && !r["sample_prompts"].empty()) {
      for (const nlohmann::json& p : r["sample_prompts"])
        if (p.is_string()) a.push_back("--sample-prompt=" + p.get<std::string>());
      if (r.contains("sample_tokens") && r["sample_tokens"].is_number_integer())
        a.push_back("--sample-tokens=" + std::to_string(r["sample_tokens"].get<int64_t>()));
    }
    if (r.contains("attention_text") && r["attention_text"].is_string() && !r["attention_text"].empty())
      a.push_back("--attention-text=" + r["attention_text"].get<std::string>());
    return a;
  }
  return {};
}

std::string shell_quote(const std::string& s) {
  bool plain = !s.empty();
  for (unsigned char ch : s)
    if (!(std::isalnum(ch) || ch >= 0x80 || std::string_view("_./:=+-,").find((char)ch) != std::string_view::npos))
      plain = false;
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& w : argv) line += (line.empty() ? "" : " ") + shell_quote(w);
  return line;
}

std::vector<std::string> split_command(const std::string& line) {
  std::vector<std::string> words;
  std::string w;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(w), w.clear(), in_word = false;
    } else if (ch == '\'') {
      const size_t end = line.find('\'', i + 1);
      LLM0_CHECK(end != std::string::npos, "unterminated quote in the command \"{}\"", line);
      w += line.substr(i + 1, end - i - 1), i = end, in_word = true;
    } else if (ch == '\\' && i + 1 < line.size()) {
      w += line[++i], in_word = true;
    } else {
      w += ch, in_word = true;
    }
  }
  if (in_word) words.push_back(w);
  return words;
}

std::vector<std::string> option_values(const std::vector<std::string>& argv, const std::string& name) {
  std::vector<std::string> v;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == name && i + 1 < argv.size()) v.push_back(argv[++i]);
    else if (argv[i].rfind(name + "=", 0) == 0) v.push_back(argv[i].substr(name.size() + 1));
  }
  return v;
}

}  // namespace llm0::explore
