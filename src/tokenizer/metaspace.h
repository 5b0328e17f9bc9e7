// The fields of tokenizer.json's Metaspace component, the same for the pre-tokenizer and the
// decoder (HF tokenizers src/pre_tokenizers/metaspace.rs: replacement, prepend_scheme, and the
// older add_prefix_space that files written before tokenizers 0.14 carry instead).
#pragma once
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/pre_tokenizer.h"

namespace llm0 {

/// Metaspace's replacement character and prepend scheme.
struct MetaspaceFields {
  std::string replacement;  // "▁" in every published file
  PrependScheme scheme = PrependScheme::Always;
};

/// Reads a Metaspace object `j` (component `field` of file `path`): prepend_scheme "always" /
/// "first" / "never" when present, else add_prefix_space (default true: always; false: never).
/// Throws llm0::Error naming the field for a missing or empty replacement, an unknown
/// prepend_scheme, or an add_prefix_space that is not a boolean.
MetaspaceFields metaspace_from_json(const nlohmann::json& j, const std::string& path, const std::string& field);

}  // namespace llm0
