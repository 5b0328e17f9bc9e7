// Whether a tokenizer belongs with a model: checked by `llm0 convert` before it writes the pair,
// so that a checkpoint directory it writes loads and generates (DESIGN.md "Conventions").
#pragma once
#include <string>

#include "config/config.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

/// Checks that `tok` fits model `cfg`: every added (special) token's id and the tokenizer's whole
/// vocabulary lie within the model's vocab_size embedding rows, and cfg's bos_token_id and
/// eos_token_id (when set, i.e. >= 0) are tokens of `tok`. Throws llm0::Error starting with
/// `where` (the file the tokenizer came from) and naming the token and both sizes, e.g.
/// "tokenizer.json: added token '<|im_end|>' has id 300, past the model's vocab_size=300".
/// `key_prefix` names where the bos/eos ids were read: "config.json " or a GGUF's
/// "tokenizer.ggml." ("model.gguf: tokenizer.ggml.eos_token_id=999 is not a token of ...").
void check_tokenizer_fits(const Tokenizer& tok, const ModelConfig& cfg, const std::string& where,
                          const std::string& key_prefix);

/// Loads the tokenizer.json at `path` (Tokenizer::load: its errors name the file and the field,
/// e.g. a file that is not JSON) and checks it against `cfg` (check_tokenizer_fits; the bos/eos
/// ids were read from the file named `config_name`, e.g. "config.json"). Throws llm0::Error on
/// either.
void check_checkpoint_tokenizer(const std::string& path, const ModelConfig& cfg,
                                const std::string& config_name);

}  // namespace llm0
