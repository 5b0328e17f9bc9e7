// `llm0 init --config CONFIG.json --seed N --output DIR [--dtype f32|bf16|f16]`: a randomly
// initialised checkpoint (GPT-2-style init, see src/model/init.h).
#include <cstdio>
#include <string>

#include "common.h"
#include "io/checkpoint.h"
#include "model/init.h"

namespace llm0::cli {

void register_init(CLI::App& app) {
  auto* cmd = app.add_subcommand("init", "Write a randomly initialised checkpoint from a config.json");
  static std::string config, output;
  static uint64_t seed = 0;
  static DType dtype = DType::F32;
  cmd->add_option("--config", config, "Model config (Hugging Face config.json style)")->required();
  cmd->add_option("--seed", seed, "Random seed")->check(seed_check());
  static bool overwrite = false;
  cmd->add_option("--output", output, "Checkpoint directory to write (new or empty)")->required();
  cmd->add_flag("--overwrite", overwrite, "Replace --output if it already holds files");
  add_checkpoint_dtype_option(cmd, dtype);
  add_threads_option(cmd);
  cmd->callback([] {
    check_checkpoint_output(output, overwrite);
    Model model(ModelConfig::from_file(config));
    init_weights(model, seed);
    save_checkpoint(model, output, "", dtype);
    std::printf("wrote %s: %zu parameters, %s\n", output.c_str(), model.num_parameters(),
                dtype_name(dtype));
  });
}

}  // namespace llm0::cli
