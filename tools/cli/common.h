// Shared CLI plumbing: every subcommand file defines `void register_<name>(CLI::App& app)`
// which adds its subcommand (with --threads and --help) and a callback; main.cpp calls them all.
#pragma once
#include <CLI/CLI.hpp>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "infer/infer_dtypes.h"
#include "layers/mla.h"

namespace llm0 {
class Model;
}

namespace llm0::cli {

/// Validators for numeric options that say what they want ("must be a number > 0, got -1")
/// where CLI11's own print the whole range (0 to 1.797...e+308); both refuse inf and nan.
CLI::Validator positive_check();
CLI::Validator non_negative_check();
/// A finite number in [lo, hi]; otherwise "must be WHAT, got TEXT" (WHAT names the range).
CLI::Validator number_in_check(double lo, double hi, const std::string& what);

/// Adds `--threads N` (default 0 = all cores) to `cmd`; the value is applied before the callback
/// runs (OpenMP and OpenBLAS share it). A negative N is refused with a short message.
void add_threads_option(CLI::App* cmd);
/// The --threads value given (0 = the default, all cores).
int threads_option();

/// Adds `--mla-decode absorbed|expanded` (default absorbed, any case) to `cmd`: the decode form
/// of multi-head latent attention layers (apply_mixer_options refuses it for other models).
/// Another word is refused naming the two forms.
inline void add_mla_decode_option(CLI::App* cmd, MlaDecode& form) {
  cmd->add_option_function<std::string>(
         "--mla-decode",
         [&form](const std::string& word) {
           const std::string w = CLI::detail::to_lower(word);
           if (w != "absorbed" && w != "expanded")
             throw CLI::ValidationError("--mla-decode", "must be absorbed or expanded, got \"" + word + "\"");
           form = w == "absorbed" ? MlaDecode::Absorbed : MlaDecode::Expanded;
         },
         "MLA decode form: absorbed (W_UK into the query, W_UV after the weighted sum; the "
         "default) or expanded (k_nope and v re-created from the cached latents); refused for "
         "a model without MLA layers")
      ->type_name("absorbed|expanded");
}

/// Adds `--delta-chunk L` to `cmd`: the chunk length of Gated DeltaNet's chunked form
/// (Model::set_linear_chunk_size; 0 keeps the default 64; apply_mixer_options refuses it for a
/// model without linear layers).
inline void add_delta_chunk_option(CLI::App* cmd, int& L) {
  cmd->add_option("--delta-chunk", L,
                  "Gated DeltaNet chunk length of the chunked form (0 = the default, 64); "
                  "refused for a model without Gated DeltaNet layers")
      ->check(non_negative_check());
}

/// Applies --delta-chunk `delta_chunk` (0: the default) to `model` and checks --mla-decode (the
/// form itself goes to the command's InferContext). A flag the user gave on `cmd` that cannot
/// apply throws llm0::Error naming it and its value: --mla-decode for a model without multi-head
/// latent attention layers, --delta-chunk for one without Gated DeltaNet layers. A flag `cmd`
/// does not have counts as not given.
void apply_mixer_options(const CLI::App& cmd, Model& model, int delta_chunk);

/// Adds `--weights-dtype auto|f32|bf16` (default auto: as the checkpoint stores its matrices) and
/// `--kv-dtype f32|bf16` (default bf16 when the weights are bf16, else f32) to `cmd`.
inline void add_dtype_options(CLI::App* cmd, InferDtypes& d) {
  cmd->add_option_function<std::string>(
         "--weights-dtype", [&d](const std::string& s) { d.weights = parse_weights_dtype(s); },
         "Matrices as the kernels read them: auto (as the checkpoint stores them; F16 widens to "
         "f32), f32, or bf16 (F32 checkpoints rounded to nearest even)")
      ->check(CLI::IsMember({"auto", "f32", "bf16"}));
  cmd->add_option_function<std::string>(
         "--kv-dtype", [&d](const std::string& s) { d.kv = parse_element_type(s); },
         "Cached K/V (and MLA latents): f32 or bf16 (default bf16 with bf16 weights, else f32)")
      ->check(CLI::IsMember({"f32", "bf16"}));
}

/// Adds `--dtype f32|bf16|f16` (default f32) to `cmd`: the element type of the safetensors written
/// by init / convert.
inline void add_checkpoint_dtype_option(CLI::App* cmd, DType& dtype) {
  static const std::map<std::string, DType> names{
      {"f32", DType::F32}, {"bf16", DType::BF16}, {"f16", DType::F16}};
  // A string checked by IsMember (its message names the choices: "f8 not in {f32,bf16,f16}";
  // CLI11's CheckedTransformer would print its internal mapping), then mapped.
  cmd->add_option_function<std::string>(
         "--dtype", [&dtype](std::string v) {
           for (char& c : v) c = (char)std::tolower((unsigned char)c);  // as checked: any case
           dtype = names.at(v);
         },
         "Element type of the weights written: f32, bf16 or f16 (rounded to nearest even)")
      ->check(CLI::IsMember({"f32", "bf16", "f16"}, CLI::ignore_case));
}

/// Validator for a `--seed`: a decimal integer in [0, 2^64) (no sign), so "-1" is refused
/// instead of wrapping around to 2^64 - 1.
CLI::Validator seed_check();

/// Parses a comma-separated list of positive integers ("5,3,1") given to option `name`. Throws
/// CLI::ValidationError (printed as "llm0: error: --chunks: ...") on an empty list or item
/// ("1,,2", "1,"), a sign, a non-number or a value out of int range.
std::vector<int> parse_positive_list(const std::string& text, const std::string& name);

/// Adds `name` taking one such list (e.g. --chunks 5,3,1) into `values`, parsed strictly.
CLI::Option* add_positive_list_option(CLI::App* cmd, const std::string& name, std::vector<int>& values,
                                      const std::string& help);

/// Refuses an --output checkpoint directory that would replace something: a path that is a file,
/// or a non-empty directory unless `overwrite` (--overwrite). Throws llm0::Error naming the path.
void check_checkpoint_output(const std::string& output, bool overwrite);

/// The name in `names` closest to `word` by edit distance (at most 3 edits and less than the
/// word's length), or "" if none is that close: "genrate" -> "generate".
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

/// "HOST:PORT" for a URL: an IPv6 literal in brackets (RFC 3986 section 3.2.2: http://[::1]:8080).
inline std::string host_port(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? "[" + host + "]:" + std::to_string(port)
                                             : host + ":" + std::to_string(port);
}

}  // namespace llm0::cli
