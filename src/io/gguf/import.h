// GGUF import (`llm0 convert --from gguf FILE.gguf --output DIR`): a GGUF file of one of the
// architectures llm0 exports (llama, qwen2, qwen3, qwen3moe, deepseek2, qwen3next) as a Hugging
// Face checkpoint directory — config.json (io/gguf/import_config.h), model.safetensors
// (io/gguf/import_tensors.h), tokenizer.json (io/gguf/import_tokenizer.h),
// generation_config.json, and tokenizer_config.json when the file has a tokenizer.chat_template
// (the model's own chat template, which `llm0 serve` renders: src/chat/). The inverse of
// io/gguf/export.h: export then import gives the same
// config fields, bitwise the same tensors and the same tokenizer.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "io/gguf/import_tensors.h"
#include "io/gguf/reader.h"

namespace llm0 {

/// Everything the directory holds, built in memory from a parsed file.
struct GgufImport {
  std::string architecture;         // general.architecture
  ModelConfig config;
  std::vector<HfTensor> tensors;    // every parameter of `config`
  nlohmann::ordered_json tokenizer;  // tokenizer.json
  nlohmann::ordered_json tokenizer_config;  // tokenizer_config.json: tokenizer.chat_template as
                                            // chat_template, with bos_token / eos_token (the texts
                                            // of their ids); null when the file has no template
};

/// Converts a parsed GGUF file (`where` names it in errors); `dtype` (F32, BF16 or F16) is the
/// written dtype of matrices that are not stored as F16/BF16 (gguf_model_tensors). Throws
/// llm0::Error naming the file and the key or tensor (gguf_model_config, gguf_model_tensors,
/// gguf_tokenizer_json).
GgufImport gguf_to_hf(const GgufFile& file, DType dtype, const std::string& where);

/// What import_gguf wrote.
struct GgufImportSummary {
  std::string architecture;
  size_t tensors = 0, parameters = 0;
};

/// Reads `gguf_path` and writes the checkpoint directory `out_dir` atomically (DIR.tmp, then
/// renamed: on any error nothing is left at `out_dir`). Throws llm0::Error as read_gguf and
/// gguf_to_hf do, or when the directory cannot be written.
GgufImportSummary import_gguf(const std::string& gguf_path, const std::string& out_dir,
                              DType dtype = DType::F32);

}  // namespace llm0
