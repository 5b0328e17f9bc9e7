// FLOP ledger for training throughput and model FLOPs utilisation (MFU), after PaLM
// (Chowdhery et al., arXiv:2204.02311, Appendix B): a training step costs 6 FLOPs per parameter
// per token for the matrix multiplies (2 forward + 4 backward), plus attention's q·k and p·v
// products, 6 · L · H · D · T per token (12·L·H·D·T halved by the causal mask).
// Embedding lookups (not matmuls) are excluded; an untied lm_head is counted as a matmul.
#pragma once
#include "config/config.h"

namespace llm0 {

/// Parameters that take part in matrix multiplies for one token: everything but the token/position
/// embedding tables and norm weights — plus the lm_head (the embedding itself when tied); in
/// mixture-of-experts layers the router, the K routed experts and the shared expert only
/// (ledger/param_count.h, matmul_active).
double matmul_parameters(const ModelConfig& c);

/// Training FLOPs per token at sequence length T (forward + backward), per the formula above.
double train_flops_per_token(const ModelConfig& c, int T);

/// Forward-only FLOPs per token at context length T (a third of the training figure).
double forward_flops_per_token(const ModelConfig& c, int T);

/// Decode FLOPs of one new token with S cached positions: 2 per active matmul parameter plus
/// q·k and p·v over the S positions, 4 · L · H · d · S (every layer attending to all S).
double decode_flops_per_token(const ModelConfig& c, int S);

}  // namespace llm0
