// Option checks and "did you mean" suggestions shared by the subcommands (see common.h).
#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <charconv>
#include <cstdint>

#include "common.h"
#include "model/model.h"

#include <filesystem>

namespace llm0::cli {

namespace {

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = std::min<size_t>(4, word.size());  // must beat this
  for (const std::string& n : names) {
    const size_t d = edit_distance(word, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const bool digits = !s.empty() && s.size() <= 20 &&
                            std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && (s.size() < 20 || s <= "18446744073709551615")) return "";
        return "must be an integer in [0, 2^64 - 1], got " + s;
      },
      "UINT64");
}

std::vector<int> parse_positive_list(const std::string& text, const std::string& name) {
  std::vector<int> values;
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty())
      throw CLI::ValidationError(name, text.empty() ? "an empty list" : "an empty item in \"" + text + "\"");
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v <= 0)
      throw CLI::ValidationError(name, "\"" + item + "\" in \"" + text + "\" is not a positive integer");
    values.push_back(v);
    if (comma == text.size()) return values;
    at = comma + 1;
  }
}

CLI::Option* add_positive_list_option(CLI::App* cmd, const std::string& name, std::vector<int>& values,
                                      const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          name, [&values, name](const std::string& text) { values = parse_positive_list(text, name); },
          help)
      ->type_name("N,N,...");
}

namespace {
// The flag's text as a finite number, or false.
bool finite_number(const std::string& text, double& v) {
  char* end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && std::isfinite(v);
}

CLI::Validator number_check(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& text) -> std::string {
        double v = 0;
        const bool ok = finite_number(text, v) && (allow_zero ? v >= 0 : v > 0);
        return ok ? "" : std::string("must be a number ") + (allow_zero ? ">= 0" : "> 0") +
                             ", got " + text;
      },
      allow_zero ? "NUMBER >= 0" : "NUMBER > 0");
}
}  // namespace

CLI::Validator number_in_check(double lo, double hi, const std::string& what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        double v = 0;
        const bool ok = finite_number(text, v) && v >= lo && v <= hi;
        return ok ? "" : "must be " + what + ", got " + (text.size() > 40 ? "a value of " + std::to_string(text.size()) + " characters" : text);
      },
      what);
}

CLI::Validator positive_check() { return number_check(false); }
CLI::Validator non_negative_check() { return number_check(true); }

namespace {
// The text the user gave for option `name` of `cmd`, or "" when the option was not given.
std::string given_text(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* o = cmd.get_option_no_throw(name);
  return o && o->count() > 0 ? o->as<std::string>() : std::string();
}
}  // namespace

void apply_mixer_options(const CLI::App& cmd, Model& model, int delta_chunk) {
  const ModelConfig& c = model.config();
  const std::string mla = given_text(cmd, "--mla-decode"), delta = given_text(cmd, "--delta-chunk");
  LLM0_CHECK(mla.empty() || c.mla.enabled(), "--mla-decode {} cannot apply: the model (model_type "
             "{}) has no multi-head latent attention (MLA) layers", mla, c.model_type);
  LLM0_CHECK(delta.empty() || c.has_linear_layers(), "--delta-chunk {} cannot apply: the model "
             "(model_type {}) has no Gated DeltaNet (linear_attention) layers", delta, c.model_type);
  if (delta_chunk > 0) model.set_linear_chunk_size(delta_chunk);
}

void check_checkpoint_output(const std::string& output, bool overwrite) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(output, ec);
  if (!fs::exists(st)) return;
  LLM0_CHECK(fs::is_directory(st), "--output {} is a file, not a checkpoint directory", output);
  LLM0_CHECK(overwrite || fs::is_empty(output, ec), "--output {} is not empty: pass --overwrite to "
             "replace it (its files are deleted)",
             output);
}

}  // namespace llm0::cli
