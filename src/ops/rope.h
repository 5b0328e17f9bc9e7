// Rotary position embedding (RoFormer, Su et al., arXiv:2104.09864, eq. 34), in Hugging Face's
// "rotate_half" layout (transformers/models/llama/modeling_llama.py: apply_rotary_pos_emb):
// on the first R = rotary_dim dims of each head, dim i pairs with dim i + R/2 and
//   [x_i, x_{i+R/2}] <- [x_i cos θ - x_{i+R/2} sin θ,  x_{i+R/2} cos θ + x_i sin θ],
//   θ = pos · rope_theta^(-2i/R),  i in [0, R/2).
// Dims R..D-1 pass through untouched (partial rotary, e.g. R = 64 of D = 256). Q and K only,
// never V. Angles are formed in double so positions ≥ 32k keep full float32 precision.
#pragma once

namespace llm0 {

/// Rotates x [N, H, D] in place; row n is at absolute position positions[n]. R even, R <= D.
void rope_forward(float* x, const int* positions, int N, int H, int D, int R, double theta);

/// Backward of rope_forward: the rotation is orthogonal, so dx = rotation by -θ of dy,
/// applied in place to dx [N, H, D].
void rope_backward(float* dx, const int* positions, int N, int H, int D, int R, double theta);

}  // namespace llm0
