// Shared CLI plumbing: every subcommand file defines `void register_<name>(CLI::App& app)`
// which adds its subcommand (with --threads and --help) and a callback; main.cpp calls them all.
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "layers/mla.h"

namespace llm0::cli {

/// Adds `--threads N` (default 0 = all cores) to `cmd`; the value is applied before the callback
/// runs (OpenMP and OpenBLAS share it). A negative N is refused with a short message.
void add_threads_option(CLI::App* cmd);
/// The --threads value given (0 = the default, all cores).
int threads_option();

/// Adds `--mla-decode absorbed|expanded` (default absorbed) to `cmd`: the decode form of
/// multi-head latent attention layers (ignored by other models).
inline void add_mla_decode_option(CLI::App* cmd, MlaDecode& form) {
  static const std::map<std::string, MlaDecode> names{{"absorbed", MlaDecode::Absorbed},
                                                      {"expanded", MlaDecode::Expanded}};
  cmd->add_option("--mla-decode", form,
                  "MLA decode form: absorbed (W_UK into the query, W_UV after the weighted sum) or "
                  "expanded (k_nope and v re-created from the cached latents)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case));
}

/// Adds `--delta-chunk L` to `cmd`: the chunk length of Gated DeltaNet's chunked form
/// (Model::set_linear_chunk_size; 0 keeps the default 64; ignored by models without linear layers).
inline void add_delta_chunk_option(CLI::App* cmd, int& L) {
  cmd->add_option("--delta-chunk", L,
                  "Gated DeltaNet chunk length of the chunked form (0 = the default, 64)")
      ->check(CLI::NonNegativeNumber);
}

/// Validator for a `--seed`: a decimal integer in [0, 2^64) (no sign), so "-1" is refused
/// instead of wrapping around to 2^64 - 1.
CLI::Validator seed_check();

/// The name in `names` closest to `word` by edit distance (at most 3 edits and less than the
/// word's length), or "" if none is that close: "genrate" -> "generate".
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

}  // namespace llm0::cli
