// Naive double-precision reference of rotary position embedding (RoFormer, arXiv:2104.09864,
// eq. 34) in Hugging Face's rotate_half layout (modeling_llama.py: apply_rotary_pos_emb): on the
// first R dims of each head, dim i pairs with dim i + R/2, θ_i = pos · theta^(-2i/R), and
//   [x_i, x_{i+R/2}] <- [x_i cos θ_i - x_{i+R/2} sin θ_i,  x_{i+R/2} cos θ_i + x_i sin θ_i].
// Dims R..D-1 are left as they are. Layout as ops/rope.h: x [N, H, D], positions [N].
#pragma once

namespace llm0::ref {

/// Rotates x [N, H, D] in place, row n at absolute position positions[n]. Throws llm0::Error
/// unless R is even and R <= D.
void rope_forward(double* x, const int* positions, int N, int H, int D, int R, double theta);

}  // namespace llm0::ref
