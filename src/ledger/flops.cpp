// FLOP ledger. See flops.h.
#include "ledger/flops.h"

#include "layers/mixer_factory.h"
#include "ledger/param_count.h"

namespace llm0 {

double matmul_parameters(const ModelConfig& c) { return count_parameters(c).matmul_active; }

double mixer_flops_per_token(const ModelConfig& c, FlopPass pass, int context) {
  double f = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    f += make_mixer(c, il)->flops_per_token(pass, context);
  return f;
}

double train_flops_per_token(const ModelConfig& c, int T) {
  return 6.0 * matmul_parameters(c) + mixer_flops_per_token(c, FlopPass::Train, T);
}

double forward_flops_per_token(const ModelConfig& c, int T) {
  return 2.0 * matmul_parameters(c) + mixer_flops_per_token(c, FlopPass::Forward, T);
}

double decode_flops_per_token(const ModelConfig& c, int S) {
  return 2.0 * matmul_parameters(c) + mixer_flops_per_token(c, FlopPass::Decode, S);
}

}  // namespace llm0
