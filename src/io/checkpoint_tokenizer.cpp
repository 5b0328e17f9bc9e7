// check_tokenizer_fits, check_checkpoint_tokenizer (see checkpoint_tokenizer.h).
#include "io/checkpoint_tokenizer.h"

#include <utility>

#include "core/check.h"

namespace llm0 {

void check_tokenizer_fits(const Tokenizer& tok, const ModelConfig& cfg, const std::string& where,
                          const std::string& key_prefix) {
  for (const auto& [text, id] : tok.special_tokens())
    LLM0_CHECK(id < cfg.vocab_size, "{}: added token '{}' has id {}, past the model's "
               "vocab_size={}: the model has no embedding row for it", where, text, id, cfg.vocab_size);
  LLM0_CHECK(tok.vocab_size() <= cfg.vocab_size, "{}: the tokenizer holds {} tokens, more than the "
             "model's vocab_size={}: ids from {} on have no embedding row", where, tok.vocab_size(),
             cfg.vocab_size, cfg.vocab_size);
  for (const auto& [name, id] : {std::pair{"bos_token_id", cfg.bos_token_id},
                                 std::pair{"eos_token_id", cfg.eos_token_id}})
    LLM0_CHECK(id < tok.vocab_size(), "{}: {}{}={} is not a token of the tokenizer (it holds {} tokens; the "
               "model's vocab_size={})", where, key_prefix, name, id, tok.vocab_size(), cfg.vocab_size);
}

void check_checkpoint_tokenizer(const std::string& path, const ModelConfig& cfg,
                                const std::string& config_name) {
  check_tokenizer_fits(Tokenizer::load(path), cfg, path, config_name + " ");
}

}  // namespace llm0
