// `llm0 convert --model DIR --output DIR --dtype f32|bf16|f16`: a checkpoint rewritten with its
// weights in another element type (rounded to nearest even; widening is exact), with config.json
// and tokenizer.json (checked first: it must load and fit the model, io/checkpoint_tokenizer.h).
// A BF16 checkpoint is what `--weights-dtype auto` runs in BF16.
// `llm0 convert --from llama2c MODEL.bin --tokenizer TOK.bin --output DIR`: a llama2.c checkpoint
// and tokenizer as a Hugging Face Llama directory (io/llama2c.h).
// `llm0 convert --from gguf FILE.gguf --output DIR [--dtype f32|bf16|f16]`: a GGUF file (llama, qwen2,
// qwen3, qwen3moe, deepseek2, qwen3next) as a Hugging Face directory (io/gguf/import.h).
#include <cstdio>
#include <filesystem>
#include <string>

#include "common.h"
#include "io/checkpoint.h"
#include "io/checkpoint_tokenizer.h"
#include "io/gguf/import.h"
#include "io/llama2c.h"

namespace llm0::cli {

namespace {
struct ConvertArgs {
  std::string model_dir, output, from, source, tokenizer;
  DType dtype = DType::BF16;
  bool overwrite = false;
};

void convert_llama2c_files(const ConvertArgs& a, CLI::App* cmd) {
  LLM0_CHECK(!a.source.empty(), "convert --from llama2c needs the checkpoint file: llm0 convert --from "
             "llama2c MODEL.bin --tokenizer TOK.bin --output DIR");
  LLM0_CHECK(!a.tokenizer.empty(), "convert --from llama2c needs --tokenizer TOK.bin (llama2.c's "
             "tokenizer.bin; the checkpoint does not hold the vocabulary)");
  LLM0_CHECK(a.model_dir.empty() && cmd->get_option("--dtype")->count() == 0,
             "convert --from llama2c takes no --model or --dtype (the weights are written as float32)");
  convert_llama2c(a.source, a.tokenizer, a.output);
  std::printf("wrote %s from the llama2.c checkpoint %s\n", a.output.c_str(), a.source.c_str());
}

void convert_gguf_file(const ConvertArgs& a, CLI::App* cmd) {
  LLM0_CHECK(!a.source.empty(), "convert --from gguf needs the file: llm0 convert --from gguf "
             "MODEL.gguf --output DIR");
  LLM0_CHECK(a.model_dir.empty() && a.tokenizer.empty(), "convert --from gguf takes no --model or "
             "--tokenizer (the GGUF file holds the tokenizer)");
  // F16/BF16 tensors are kept as stored; --dtype is for F32 and quantized matrices (default f32).
  const DType dtype = cmd->get_option("--dtype")->count() > 0 ? a.dtype : DType::F32;
  const GgufImportSummary s = import_gguf(a.source, a.output, dtype);
  std::printf("wrote %s from the GGUF file %s: %s, %zu tensors, %zu parameters\n", a.output.c_str(),
              a.source.c_str(), s.architecture.c_str(), s.tensors, s.parameters);
}
}  // namespace

void register_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Rewrite a checkpoint with its weights in another dtype (f32, bf16, f16), "
                                            "or import a llama2.c checkpoint (--from llama2c) or a GGUF file (--from gguf)");
  static ConvertArgs a;
  cmd->add_option("--model", a.model_dir, "Checkpoint directory, or a training run whose checkpoint/ is one");
  cmd->add_option("--output", a.output, "Checkpoint directory to write (new or empty)")->required();
  cmd->add_flag("--overwrite", a.overwrite, "Replace --output if it already holds files");
  add_checkpoint_dtype_option(cmd, a.dtype);
  cmd->add_option("--from", a.from, "Import a file of another format: llama2c (llama2.c's model .bin, "
                  "legacy or version 1 header) or gguf (llama.cpp's; --dtype for its F32 and quantized "
                  "matrices, default f32)")->check(CLI::IsMember({"llama2c", "gguf"}));
  cmd->add_option("source", a.source, "With --from: the file to import (e.g. stories260K.bin, model.gguf)");
  cmd->add_option("--tokenizer", a.tokenizer, "With --from llama2c: llama2.c's tokenizer .bin (e.g. tok512.bin)");
  add_threads_option(cmd);
  cmd->callback([cmd] {
    check_checkpoint_output(a.output, a.overwrite);
    if (a.from == "gguf") return convert_gguf_file(a, cmd);
    if (!a.from.empty()) return convert_llama2c_files(a, cmd);
    LLM0_CHECK(a.source.empty() && a.tokenizer.empty(),
               "convert: a file argument and --tokenizer need --from llama2c (or a file, --from gguf)");
    LLM0_CHECK(!a.model_dir.empty(), "convert needs --model DIR (or --from llama2c MODEL.bin)");
    LLM0_CHECK(cmd->get_option("--dtype")->count() > 0, "convert --model needs --dtype f32, bf16 or f16");
    const std::string dir = resolve_checkpoint_dir(a.model_dir);
    const auto model = load_model(dir);
    const std::string tok = dir + "/tokenizer.json";
    // What is copied must load and fit the model (a tokenizer.json that is not JSON is refused).
    if (std::filesystem::exists(tok)) check_checkpoint_tokenizer(tok, model->config(), "config.json");
    save_checkpoint(*model, a.output, std::filesystem::exists(tok) ? tok : "", a.dtype);
    std::printf("wrote %s: %zu parameters, %s\n", a.output.c_str(), model->num_parameters(),
                dtype_name(a.dtype));
  });
}

}  // namespace llm0::cli
