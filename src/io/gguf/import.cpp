// gguf_to_hf (see import.h): config, tensors and tokenizer from one parsed file, no I/O (the
// fuzz harness tests/fuzz/fuzz_gguf.cpp drives it on arbitrary files).
#include "io/gguf/import.h"

#include "io/gguf/import_config.h"
#include "io/gguf/import_tokenizer.h"

namespace llm0 {

namespace {
// tokenizer_config.json of the chat template: HF's names, the special tokens as their texts.
nlohmann::ordered_json chat_tokenizer_config(const GgufMeta& meta, const ModelConfig& c) {
  const std::optional<std::string> t = meta.opt_string("tokenizer.chat_template");
  if (!t) return nullptr;
  nlohmann::ordered_json j = {{"chat_template", *t}};
  const std::vector<std::string> tokens = meta.opt_strings("tokenizer.ggml.tokens").value_or(std::vector<std::string>{});
  if (c.bos_token_id >= 0 && c.bos_token_id < (int)tokens.size()) j["bos_token"] = tokens[(size_t)c.bos_token_id];
  if (c.eos_token_id >= 0 && c.eos_token_id < (int)tokens.size()) j["eos_token"] = tokens[(size_t)c.eos_token_id];
  return j;
}
}  // namespace

GgufImport gguf_to_hf(const GgufFile& file, DType dtype, const std::string& where) {
  const GgufMeta meta{file, where};
  GgufImport out;
  out.architecture = meta.req_string("general.architecture");
  out.config = gguf_model_config(meta);
  out.tokenizer = gguf_tokenizer_json(meta, out.config.vocab_size);
  out.tokenizer_config = chat_tokenizer_config(meta, out.config);
  out.tensors = gguf_model_tensors(meta, out.config, dtype);
  return out;
}

}  // namespace llm0
