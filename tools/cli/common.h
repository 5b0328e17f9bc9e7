// Shared CLI plumbing: every subcommand file defines `void register_<name>(CLI::App& app)`
// which adds its subcommand (with --threads and --help) and a callback; main.cpp calls them all.
#pragma once
#include <CLI/CLI.hpp>

namespace llm0::cli {

/// Adds `--threads N` (default 0 = all cores) to `cmd`; the value is applied before the callback
/// runs (OpenMP and OpenBLAS share it).
void add_threads_option(CLI::App* cmd);
/// The --threads value given (0 = the default, all cores).
int threads_option();

}  // namespace llm0::cli
