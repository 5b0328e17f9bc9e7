// `llm0 convert --model DIR --output DIR --dtype f32|bf16|f16`: a checkpoint rewritten with its
// weights in another element type (rounded to nearest even; widening is exact), with config.json
// and tokenizer.json. A BF16 checkpoint is what `--weights-dtype auto` runs in BF16.
#include <cstdio>
#include <filesystem>
#include <string>

#include "common.h"
#include "io/checkpoint.h"

namespace llm0::cli {

void register_convert(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Rewrite a checkpoint with its weights in another dtype (f32, bf16, f16)");
  static std::string model_dir, output;
  static DType dtype = DType::BF16;
  cmd->add_option("--model", model_dir, "Checkpoint directory, or a training run whose checkpoint/ is one")->required();
  static bool overwrite = false;
  cmd->add_option("--output", output, "Checkpoint directory to write (new or empty)")->required();
  cmd->add_flag("--overwrite", overwrite, "Replace --output if it already holds files");
  add_checkpoint_dtype_option(cmd, dtype);
  cmd->get_option("--dtype")->required();
  add_threads_option(cmd);
  cmd->callback([] {
    check_checkpoint_output(output, overwrite);
    const std::string dir = resolve_checkpoint_dir(model_dir);
    const auto model = load_model(dir);
    const std::string tok = dir + "/tokenizer.json";
    save_checkpoint(*model, output, std::filesystem::exists(tok) ? tok : "", dtype);
    std::printf("wrote %s: %zu parameters, %s\n", output.c_str(), model->num_parameters(),
                dtype_name(dtype));
  });
}

}  // namespace llm0::cli
