// `llm0 export gguf --model DIR --output FILE.gguf [--dtype f32|f16|bf16]`: a checkpoint as a GGUF v3
// file for llama.cpp (architectures llama, qwen3, qwen3moe, qwen3next and deepseek2; see
// src/io/gguf/export.h). The file appears only when complete; models llama.cpp cannot represent
// are refused with the feature named.
#include <cstdio>
#include <string>

#include "common.h"
#include "core/check.h"
#include "io/gguf/export.h"

namespace llm0::cli {

void register_export(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Export a checkpoint to another format");
  cmd->require_subcommand(1);
  auto* gguf = cmd->add_subcommand("gguf", "Write a GGUF file for llama.cpp (llama, qwen3, qwen3moe, qwen3next, deepseek2)");
  static std::string model_dir, output, dtype = "f32";
  gguf->add_option("--model", model_dir, "Checkpoint directory, or a training run whose checkpoint/ is one")->required();
  gguf->add_option("--output", output, "GGUF file to write")->required();
  gguf->add_option("--dtype", dtype, "Element type of the weight matrices (norms stay f32)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}))->capture_default_str();
  add_threads_option(gguf);
  gguf->callback([] {
    const GgufExportSummary s =
        export_gguf(model_dir, output, dtype == "f16"    ? GgmlType::F16
                                       : dtype == "bf16" ? GgmlType::BF16
                                                         : GgmlType::F32);
    std::printf("wrote %s: architecture %s, %zu tensors, %zu parameters, %s\n", output.c_str(),
                s.architecture.c_str(), s.tensors, s.parameters, dtype.c_str());
  });
}

}  // namespace llm0::cli
