// gguf_tokenizer_json (see import_tokenizer.h).
#include "io/gguf/import_tokenizer.h"

#include "core/check.h"
#include "io/gguf/import_hf_json.h"
#include "io/sentencepiece_json.h"
#include "tokenizer/byte_unicode.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

constexpr int kUnused = (int)SpTokenType::Unused, kControl = (int)SpTokenType::Control;

// llama.cpp llama-vocab.cpp regex_exprs of LLAMA_VOCAB_PRE_TYPE_LLAMA3 and _QWEN2 (the patterns
// of Meta's and Qwen's tokenizer.json).
constexpr const char* kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

ordered_json byte_level(bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true},
          {"use_regex", use_regex}};
}

ordered_json split_then_byte_level(const char* regex) {
  return {{"type", "Sequence"}, {"pretokenizers", {
      {{"type", "Split"}, {"pattern", {{"Regex", regex}}}, {"behavior", "Isolated"}, {"invert", false}},
      byte_level(false)}}};
}

// The pre_tokenizer of tokenizer.ggml.pre, and whether the model ignores merges for whole words.
ordered_json pre_tokenizer(const GgufMeta& m, bool& ignore_merges) {
  const std::string pre = m.opt_string("tokenizer.ggml.pre").value_or("default");
  ignore_merges = pre == "llama-bpe";
  if (pre == "gpt-2") return byte_level(true);
  if (pre == "llama-bpe") return split_then_byte_level(kLlama3Regex);
  if (pre == "qwen2") return split_then_byte_level(kQwen2Regex);
  LLM0_FAIL("{}: GGUF key tokenizer.ggml.pre = \"{}\" is not supported (llm0 imports gpt-2, "
            "llama-bpe and qwen2 pre-tokenizers)", m.where, pre);
}

ordered_json gpt2_json(const GgufMeta& m, const std::vector<std::string>& tokens,
                       const std::vector<int64_t>& types, int bos, bool add_bos) {
  const std::vector<std::string> merges = m.opt_strings("tokenizer.ggml.merges").value_or(std::vector<std::string>{});
  LLM0_CHECK(m.file.find("tokenizer.ggml.merges"), "{}: GGUF metadata has no key tokenizer.ggml.merges "
             "(a gpt2 tokenizer needs its merges)", m.where);
  bool ignore_merges = false;
  ordered_json pre = pre_tokenizer(m, ignore_merges);
  ordered_json vocab = ordered_json::object(), added = ordered_json::array();
  for (size_t id = 0; id < tokens.size(); ++id) {
    const bool control = types[id] == kControl;
    LLM0_CHECK(control || byte_level_to_bytes(tokens[id]).has_value(), "{}: GGUF token {} '{}' is "
               "not a byte-level string (a gpt2 tokenizer's ordinary tokens are)", m.where, id, tokens[id]);
    if (byte_level_to_bytes(tokens[id])) vocab[tokens[id]] = id;
    if (control)
      added.push_back({{"id", id}, {"content", tokens[id]}, {"single_word", false}, {"lstrip", false},
                       {"rstrip", false}, {"normalized", false}, {"special", true}});
  }
  ordered_json post = byte_level(false);
  if (add_bos) {
    LLM0_CHECK(bos >= 0 && bos < (int)tokens.size(), "{}: tokenizer.ggml.add_bos_token is true but "
               "tokenizer.ggml.bos_token_id is missing or past the tokens", m.where);
    const std::string& b = tokens[(size_t)bos];
    post = {{"type", "TemplateProcessing"},
            {"single", {{{"SpecialToken", {{"id", b}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
            {"special_tokens", {{b, {{"id", b}, {"ids", {bos}}, {"tokens", {b}}}}}}};
  }
  return {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr},
          {"added_tokens", std::move(added)}, {"normalizer", nullptr}, {"pre_tokenizer", std::move(pre)},
          {"post_processor", std::move(post)}, {"decoder", byte_level(false)},
          {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr},
                     {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
                     {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", ignore_merges},
                     {"vocab", std::move(vocab)}, {"merges", merges}}}};
}

ordered_json llama_json(const GgufMeta& m, const std::vector<std::string>& tokens,
                        const std::vector<int64_t>& types, int bos, bool add_bos) {
  const std::optional<std::vector<float>> scores = m.opt_floats("tokenizer.ggml.scores");
  LLM0_CHECK(scores.has_value(), "{}: GGUF metadata has no key tokenizer.ggml.scores (a llama "
             "tokenizer merges by score)", m.where);
  LLM0_CHECK(scores->size() >= tokens.size(), "{}: tokenizer.ggml.scores has {} entries but "
             "tokenizer.ggml.tokens has more", m.where, scores->size());
  LLM0_CHECK(m.opt_bool("tokenizer.ggml.add_space_prefix").value_or(true), "{}: "
             "tokenizer.ggml.add_space_prefix false is not supported (the SentencePiece form "
             "prepends ▁)", m.where);
  std::vector<SpToken> sp(tokens.size());
  for (size_t id = 0; id < tokens.size(); ++id)
    sp[id] = {tokens[id], (*scores)[id], static_cast<SpTokenType>(types[id])};
  const std::optional<int> unk = m.opt_int("tokenizer.ggml.unknown_token_id");
  LLM0_CHECK(!unk || (*unk < (int)tokens.size() && types[(size_t)*unk] == (int)SpTokenType::Unknown),
             "{}: tokenizer.ggml.unknown_token_id {} is not the token of type UNKNOWN", m.where, unk.value_or(-1));
  return sentencepiece_tokenizer_json(sp, bos, add_bos, m.where);
}

}  // namespace

ordered_json gguf_tokenizer_json(const GgufMeta& m, int vocab_size) {
  const std::string model = m.req_string("tokenizer.ggml.model");
  LLM0_CHECK(model == "gpt2" || model == "llama", "{}: GGUF key tokenizer.ggml.model = \"{}\" is "
             "not supported (llm0 imports gpt2 and llama tokenizers)", m.where, model);
  const std::optional<std::vector<std::string>> all = m.opt_strings("tokenizer.ggml.tokens");
  LLM0_CHECK(all.has_value() && !all->empty(), "{}: GGUF metadata has no key tokenizer.ggml.tokens "
             "(or it is empty)", m.where);
  const size_t n = all->size();
  LLM0_CHECK(n <= (size_t)vocab_size, "{}: tokenizer.ggml.tokens has {} tokens but the model has "
             "{} embedding rows", m.where, n, vocab_size);
  for (const char* key : {"bos", "eos"}) {  // written into config.json and generation_config.json
    const int64_t id = m.opt_int(std::string("tokenizer.ggml.") + key + "_token_id").value_or(-1);
    LLM0_CHECK(id >= -1 && id < vocab_size, "{}: GGUF key tokenizer.ggml.{}_token_id = {} is not a "
               "token id of the vocabulary (0..{})", m.where, key, id, vocab_size - 1);
  }
  std::vector<int64_t> types = m.opt_ints("tokenizer.ggml.token_type").value_or(std::vector<int64_t>(n, 1));
  LLM0_CHECK(types.size() == n, "{}: tokenizer.ggml.token_type has {} entries but "
             "tokenizer.ggml.tokens has {}", m.where, types.size(), n);
  const std::optional<std::vector<float>> scores = m.opt_floats("tokenizer.ggml.scores");
  LLM0_CHECK(!scores || scores->size() == n, "{}: tokenizer.ggml.scores has {} entries but "
             "tokenizer.ggml.tokens has {}", m.where, scores ? scores->size() : 0, n);
  for (size_t id = 0; id < n; ++id)
    LLM0_CHECK(types[id] >= 1 && types[id] <= 6, "{}: tokenizer.ggml.token_type[{}] = {} is not a "
               "llama.cpp token type (1..6)", m.where, id, types[id]);
  size_t kept = n;  // drop the trailing padding rows
  while (kept > 1 && types[kept - 1] == kUnused) --kept;
  const std::vector<std::string> tokens(all->begin(), all->begin() + (ptrdiff_t)kept);
  if (std::optional<ordered_json> hf = gguf_hf_tokenizer_json(m, tokens)) return std::move(*hf);
  types.resize(kept);
  const int bos = m.opt_int("tokenizer.ggml.bos_token_id").value_or(-1);
  const bool add_bos = m.opt_bool("tokenizer.ggml.add_bos_token").value_or(model == "llama");
  return model == "gpt2" ? gpt2_json(m, tokens, types, bos, add_bos) : llama_json(m, tokens, types, bos, add_bos);
}

}  // namespace llm0
