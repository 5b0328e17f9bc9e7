// Shared CLI plumbing: every subcommand file defines `void register_<name>(CLI::App& app)`
// which adds its subcommand (with --threads and --help) and a callback; main.cpp calls them all.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace llm0::cli {

/// Adds `--threads N` (default 0 = all cores) to `cmd`; the value is applied before the callback
/// runs (OpenMP and OpenBLAS share it). A negative N is refused with a short message.
void add_threads_option(CLI::App* cmd);

/// Validator for a `--seed`: a decimal integer in [0, 2^64) (no sign), so "-1" is refused
/// instead of wrapping around to 2^64 - 1.
CLI::Validator seed_check();

/// The name in `names` closest to `word` by edit distance (at most 3 edits and less than the
/// word's length), or "" if none is that close: "genrate" -> "generate".
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

}  // namespace llm0::cli
