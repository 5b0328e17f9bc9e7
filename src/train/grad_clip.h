// Gradient clipping by global L2 norm (Pascanu et al., arXiv:1211.5063; PyTorch
// torch.nn.utils.clip_grad_norm_ with norm_type=2 over all parameters, i.e. the one flat gradient
// buffer of the ParamStore).
#pragma once
#include <cstddef>

namespace llm0 {

/// L2 norm sqrt(sum_i grad[i]^2) of n floats, accumulated in double. The sum is split into a
/// fixed number of chunks combined in a fixed order, so the result is bit-identical for any
/// thread count.
double grad_norm(const float* grad, size_t n);

/// Clips the global L2 norm of grad[0, n): with norm = grad_norm(grad, n), if norm > max_norm,
/// every element is multiplied by max_norm / norm (so the new norm is max_norm up to float
/// rounding; PyTorch uses max_norm / (norm + 1e-6), which lands just below). Gradients with
/// norm <= max_norm are left untouched. Returns the norm before clipping. max_norm <= 0 disables
/// clipping (nanoGPT's grad_clip = 0). A non-finite norm (inf/NaN gradients) is returned as is and
/// the gradients are left untouched, so the caller can detect it and skip the step.
double clip_grad_norm(float* grad, size_t n, double max_norm);

}  // namespace llm0
