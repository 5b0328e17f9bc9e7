// Rotary position embedding (RoFormer, Su et al., arXiv:2104.09864, eq. 34), in Hugging Face's
// "rotate_half" layout (transformers/models/llama/modeling_llama.py: apply_rotary_pos_emb):
// on the first R = rotary_dim dims of each head, dim i pairs with dim i + R/2 and
//   [x_i, x_{i+R/2}] <- [x_i cos θ - x_{i+R/2} sin θ,  x_{i+R/2} cos θ + x_i sin θ],
//   θ = pos · rope_theta^(-2i/R),  i in [0, R/2).
// Dims R..D-1 pass through untouched (partial rotary, e.g. R = 64 of D = 256). Q and K only,
// never V. Angles are formed in double so positions ≥ 32k keep full float32 precision.
// DeepSeek's MLA uses the interleaved pair layout instead (transformers/models/deepseek_v2/
// modeling_deepseek_v2.py apply_rotary_emb, a complex product): pair i is dims (2i, 2i+1),
//   [x_2i, x_2i+1] <- [x_2i cos θ - x_2i+1 sin θ,  x_2i+1 cos θ + x_2i sin θ], same θ_i,
// on the R dims starting at `offset` in each head (q_pe sits after q_nope in a query head).
#pragma once
#include <cstddef>
#include <vector>

namespace llm0 {

/// cos θ and sin θ for positions [0, size()) and i in [0, R/2), computed in double and stored
/// as float [P, R/2] — built once and grown on demand, so the hot path never calls cos/sin.
class RopeTable {
 public:
  /// Throws llm0::Error unless R is even, 0 <= R <= 1024 (0: no rotation) and theta > 0.
  RopeTable(int rotary_dim, double theta);
  /// Makes positions [0, n) available (allocates only when n exceeds every earlier request).
  void ensure(int n);
  int size() const { return size_; }
  int rotary_dim() const { return R_; }
  double theta() const { return theta_; }
  const float* cos(int pos) const { return cos_.data() + (size_t)pos * (R_ / 2); }
  const float* sin(int pos) const { return sin_.data() + (size_t)pos * (R_ / 2); }

 private:
  int R_, size_ = 0;
  double theta_;
  std::vector<float> cos_, sin_;
};

/// Which dims form a rotation pair: (i, i + R/2) or (2i, 2i + 1).
enum class RopeLayout { RotateHalf, Interleaved };

/// Rotates x [N, H, D] in place; row n is at absolute position positions[n] (< table.size()).
/// R = table.rotary_dim() <= D.
void rope_forward(float* x, const int* positions, int N, int H, int D, const RopeTable& table);
/// General form: rotates dims [offset, offset + R) of each head in `layout`. Throws llm0::Error
/// when offset + R > D or a position is outside the table.
void rope_forward(float* x, const int* positions, int N, int H, int D, const RopeTable& table,
                  RopeLayout layout, int offset);
void rope_backward(float* dx, const int* positions, int N, int H, int D, const RopeTable& table,
                   RopeLayout layout, int offset);
/// Backward: the rotation is orthogonal, so dx = rotation of dy by -θ (in place on dx [N, H, D]).
void rope_backward(float* dx, const int* positions, int N, int H, int D, const RopeTable& table);

/// Convenience forms that build the table for these positions (tests, one-off calls).
void rope_forward(float* x, const int* positions, int N, int H, int D, int R, double theta);
void rope_backward(float* dx, const int* positions, int N, int H, int D, int R, double theta);

}  // namespace llm0
