// Fuzz harness: tokenizer.json loading (tokenizer/tokenizer.h, Tokenizer::load: model vocab and
// merges, added_tokens, normalizer, pre_tokenizer with PCRE2 Split patterns, decoder). Properties
// of an accepted file: save() then load() gives the same vocabulary, merges and special tokens,
// and both encode a fixed multilingual sample to the same ids, each in [0, vocab_size).
#include "core/check.h"
#include "fuzz_util.h"
#include "tokenizer/tokenizer.h"

using namespace llm0;

namespace {

const std::string kSample =
    "Hello world's 12345 tokens,\n\n  \t spaces;<|endoftext|> \xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x88"
    "\xE4\xB8\x96\xE7\x95\x8C\xEF\xBC\x89 \xF0\x9F\x98\x80 caf\x65\xCC\x81 \xFF\xC0 end";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile input("tokenizer.json"), copy("copy.json");
  const auto tok =
      fuzz::accepted([&] { return Tokenizer::load(input.write(fuzz::as_bytes(data, size))); });
  if (!tok) return 0;
  const int V = tok->vocab_size();
  FUZZ_ASSERT(V > 0, "a loaded tokenizer has tokens");
  // (a vocabulary without some byte may refuse text it cannot spell; then so must the copy)
  const std::vector<int> ids =
      fuzz::accepted([&] { return tok->encode(kSample); }).value_or(std::vector<int>{});
  for (int id : ids) FUZZ_ASSERT(id >= 0 && id < V, "encoded ids in [0, vocab_size)");
  tok->save(copy.path());
  const Tokenizer again = Tokenizer::load(copy.path());
  FUZZ_ASSERT(again.vocab_size() == V, "vocab size round-trips");
  for (int id = 0; id < V; ++id)
    FUZZ_ASSERT(again.token_bytes(id) == tok->token_bytes(id), "token bytes round-trip");
  FUZZ_ASSERT(again.merges().size() == tok->merges().size(), "merges round-trip");
  FUZZ_ASSERT(again.special_tokens() == tok->special_tokens(), "special tokens round-trip");
  const std::vector<int> ids_again =
      fuzz::accepted([&] { return again.encode(kSample); }).value_or(std::vector<int>{});
  FUZZ_ASSERT(ids_again == ids, "the saved copy encodes the same");
  return 0;
}
