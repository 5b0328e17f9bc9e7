// `llm0 forward --model DIR --tokens "1 2 3" --output logits.npy [--chunks 5,3,1]
// [--weights-dtype auto|f32|bf16] [--kv-dtype f32|bf16]`: full forward
// of one sequence, or (--chunks) the same logits through the cached path — prefill with the first
// chunk, then each following chunk, then single tokens — as float32 [T, vocab_size] .npy.
#include <sstream>
#include <string>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "infer/chunked_forward.h"
#include "io/checkpoint.h"
#include "io/npy.h"

namespace llm0::cli {

namespace {
std::vector<int> parse_ids(const std::string& s) {
  std::vector<int> ids;
  std::istringstream in(s);
  std::string tok;
  while (in >> tok) {
    size_t used = 0;
    long v = 0;
    try {
      v = std::stol(tok, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    LLM0_CHECK(used == tok.size() && v >= 0 && v <= 2147483647L,
               "--tokens: \"{}\" is not a non-negative integer token id", tok);
    ids.push_back((int)v);
  }
  LLM0_CHECK(!ids.empty(), "--tokens is empty: give token ids such as \"1 2 3\"");
  return ids;
}
}  // namespace

void register_forward(CLI::App& app) {
  auto* cmd = app.add_subcommand("forward", "Forward of a token sequence (full, or cached with --chunks); writes logits [T, V] as .npy");
  static std::string model_dir, tokens, output;
  static std::vector<int> chunks;
  static MlaDecode mla_form = MlaDecode::Absorbed;
  static int delta_chunk = 0;
  static InferDtypes dtypes;
  cmd->add_option("--model", model_dir, "Checkpoint directory (config.json + model.safetensors)")->required();
  cmd->add_option("--tokens", tokens, "Token ids, space-separated, e.g. \"1 2 3\"")->required();
  cmd->add_option("--output", output, "Output .npy file (float32 [T, vocab_size])")->required();
  add_positive_list_option(cmd, "--chunks", chunks,
                           "Run the cached path instead: prefill with the first chunk, then each "
                           "chunk, then the rest one token at a time (e.g. 5,3,1; the sizes add "
                           "up to at most the number of tokens)");
  add_mla_decode_option(cmd, mla_form);
  add_delta_chunk_option(cmd, delta_chunk);
  add_dtype_options(cmd, dtypes);
  add_threads_option(cmd);
  cmd->callback([cmd] {
    const std::vector<int> ids = parse_ids(tokens);
    DType stored = DType::F32;
    auto model = load_model(resolve_checkpoint_dir(model_dir), &stored);
    apply_mixer_options(*cmd, *model, delta_chunk);
    apply_infer_dtypes(*model, dtypes, stored);
    const int T = (int)ids.size(), V = model->config().vocab_size;
    for (int t = 0; t < T; ++t)
      LLM0_CHECK(ids[(size_t)t] < V, "--tokens: id {} at position {} >= vocab_size={}", ids[(size_t)t], t, V);
    if (!chunks.empty()) {
      InferContext ctx(*model);
      ctx.set_mla_decode(mla_form);
      write_npy(output, chunked_forward(*model, ctx, ids, chunks).data(), Shape{T, V});
      return;
    }
    std::vector<int> targets((size_t)T, -1);
    model->forward(ids.data(), targets.data(), 1, T);
    write_npy(output, model->logits(), Shape{T, V});
  });
}

}  // namespace llm0::cli
