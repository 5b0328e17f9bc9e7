// Typed reads of GGUF metadata (io/gguf/reader.h) for importers: a key of the wrong type, out of
// range, or missing where required is refused naming the file and the key; so is a string that
// is not valid UTF-8 (GGUF strings are UTF-8, docs/gguf.md; what importers read ends in JSON).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "io/gguf/reader.h"

namespace llm0 {

/// The metadata of one GGUF file with the file name (`where`) every error message starts with.
struct GgufMeta {
  const GgufFile& file;
  std::string where;

  /// An integer key (any GGUF integer type) as int: nullopt when absent. Throws llm0::Error when
  /// it is not an integer or outside [0, 2^31).
  std::optional<int> opt_int(const std::string& key) const;
  /// opt_int, refusing an absent key ("has no key K").
  int req_int(const std::string& key) const;
  /// A FLOAT32 or FLOAT64 key; a FLOAT32 is returned as the shortest decimal that rounds to it
  /// (1e-6f -> 1e-06, not 9.99999997e-07), as a config.json writes it.
  std::optional<double> opt_float(const std::string& key) const;
  double req_float(const std::string& key) const;
  std::optional<bool> opt_bool(const std::string& key) const;
  /// A STRING key; nullopt when absent. Throws llm0::Error when it is not valid UTF-8
  /// ("tokenizer.ggml.pre is not valid UTF-8 (byte 0xFF at offset 3)").
  std::optional<std::string> opt_string(const std::string& key) const;
  std::string req_string(const std::string& key) const;
  /// An ARRAY of STRING; nullopt when absent. Throws llm0::Error naming the first element that is
  /// not valid UTF-8 ("tokenizer.ggml.tokens[1234] is not valid UTF-8 (byte 0xFF at offset 3)").
  std::optional<std::vector<std::string>> opt_strings(const std::string& key) const;
  /// An ARRAY of any integer type; nullopt when absent.
  std::optional<std::vector<int64_t>> opt_ints(const std::string& key) const;
  /// An ARRAY of FLOAT32 / FLOAT64; nullopt when absent.
  std::optional<std::vector<float>> opt_floats(const std::string& key) const;
};

}  // namespace llm0
