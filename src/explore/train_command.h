// The `llm0 train` command a page-started run is: its argv, built from a checked request, and the
// same argv as shell text (the "command" the API returns and RUN/command.txt records). The server
// runs exactly this argv (train_process.h), so the page's run is the command's run by construction.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::explore {

/// A fresh run, every field already checked (explore_train.cpp reads them from the POST body).
struct TrainCommand {
  std::string config;          ///< preset path as found (e.g. configs/llm0-small.json)
  int config_context = 0;      ///< the preset's max_position_embeddings (seq_len is capped to it)
  std::string data;            ///< corpus directory, e.g. runs/corpus
  std::string out;             ///< run directory, e.g. runs/small
  double minutes = 0;          ///< --time-limit-minutes (0 = none; then max_steps > 0)
  int max_steps = 0;           ///< --max-steps (0 = none)
  uint64_t seed = 1337;
  double dropout = 0.1;
  int threads = 1;
  std::string precision;       ///< "" = the trainer's default (auto), else f32 | bf16 | auto
  std::vector<std::string> prompts;  ///< --sample-prompt, in order
  std::string attention_text;  ///< --attention-text ("" = none)
};

/// argv of `llm0 train` for `c`, argv[0] = "llm0": --config --data --out, then
/// --time-limit-minutes or --max-steps, --seed --dropout --threads --log-every 1, [--seq-len C
/// when the preset's context C is shorter than the trainer's default], [--precision],
/// --sample-prompt per prompt, [--attention-text] (`--name=VALUE` for a value starting with "-").
std::vector<std::string> train_argv(const TrainCommand& c);

/// argv of `llm0 train` continuing run `out` from its checkpoint: --data DATA --out OUT --resume
/// OUT --threads T --log-every 1, then the --sample-prompt, --sample-tokens and --attention-text
/// options of `first` (the run's first command: no checkpoint keeps them; may be empty).
std::vector<std::string> resume_argv(const std::string& data, const std::string& out, int threads,
                                     const std::vector<std::string>& first);

/// A terminal-started run's first command as far as a resume needs it (no RUN/command.txt):
/// {"llm0", "train", "--data=DATA", "--sample-prompt=P"..., "--sample-tokens=N",
/// "--attention-text=T"} from the first "start" record of `records` (metrics.jsonl, oldest first)
/// whose fields have their types (docs/train-metrics.md); {} when there is none.
std::vector<std::string> start_record_argv(const nlohmann::json& records);

/// `s` as one POSIX shell word: unchanged when it holds only characters no shell treats specially
/// ([A-Za-z0-9_./:=+-] and bytes >= 0x80, i.e. UTF-8 text such as 床前明月光), else in single quotes
/// ('\'' for a quote inside).
std::string shell_quote(const std::string& s);

/// argv as one line of shell text: each word shell_quote()d, separated by spaces.
std::string command_text(const std::vector<std::string>& argv);

/// The words of a line written by command_text() (plain words and single-quoted parts; a
/// backslash outside quotes escapes the next byte). Throws llm0::Error on an unterminated quote.
std::vector<std::string> split_command(const std::string& line);

/// The values of every `--name VALUE` pair (or `--name=VALUE` word) in argv, in order (empty when
/// absent).
std::vector<std::string> option_values(const std::vector<std::string>& argv, const std::string& name);

}  // namespace llm0::explore
