// FLOP ledger for training throughput and model FLOPs utilisation (MFU), after PaLM
// (Chowdhery et al., arXiv:2204.02311, Appendix B): a training step costs 6 FLOPs per parameter
// per token for the matrix multiplies (2 forward + 4 backward), plus each layer's own work as its
// mixer reports it (Mixer::flops_per_token, layers/mixer.h): attention's q·k and p·v products,
// 6 · H · d · T per token and attention layer (12·H·d·T halved by the causal mask; d the mean of
// the q·k and p·v head dims), Gated DeltaNet's delta rule. Embedding lookups (not matmuls) are
// excluded; an untied lm_head is counted as a matmul. Every figure is a sum of whole numbers
// (exact in double below 2^53), so it does not depend on the order of the sum.
#pragma once
#include "config/config.h"
#include "layers/mixer.h"

namespace llm0 {

/// Parameters that take part in matrix multiplies for one token: everything but the token/position
/// embedding tables and norm weights — plus the lm_head (the embedding itself when tied); in
/// mixture-of-experts layers the router, the K routed experts and the shared expert only
/// (ledger/param_count.h, matmul_active).
double matmul_parameters(const ModelConfig& c);

/// The mixers' own FLOPs per token in `pass` at `context` positions, summed over the layers
/// (Mixer::flops_per_token of each layer's mixer). Throws llm0::Error for a layer the mixer
/// factory refuses.
double mixer_flops_per_token(const ModelConfig& c, FlopPass pass, int context);

/// Training FLOPs per token at sequence length T (forward + backward), per the formula above.
double train_flops_per_token(const ModelConfig& c, int T);

/// Forward-only FLOPs per token at context length T (a third of the training figure).
double forward_flops_per_token(const ModelConfig& c, int T);

/// Decode FLOPs of one new token with S cached positions: 2 per active matmul parameter plus
/// the mixers' work over the S positions (attention: 4 · H · d · S per layer, every layer
/// attending to all S).
double decode_flops_per_token(const ModelConfig& c, int S);

}  // namespace llm0
