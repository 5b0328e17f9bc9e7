// gguf_to_hf (see import.h): config, tensors and tokenizer from one parsed file, no I/O (the
// fuzz harness tests/fuzz/fuzz_gguf.cpp drives it on arbitrary files).
#include "io/gguf/import.h"

#include "io/gguf/import_config.h"
#include "io/gguf/import_tokenizer.h"

namespace llm0 {

GgufImport gguf_to_hf(const GgufFile& file, DType dtype, const std::string& where) {
  const GgufMeta meta{file, where};
  GgufImport out;
  out.architecture = meta.req_string("general.architecture");
  out.config = gguf_model_config(meta);
  out.tokenizer = gguf_tokenizer_json(meta, out.config.vocab_size);
  out.tensors = gguf_model_tensors(meta, out.config, dtype);
  return out;
}

}  // namespace llm0
