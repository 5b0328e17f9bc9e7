// Residual connection (He et al., arXiv:1512.03385): y = x + f(x). Forward adds the branch into
// the stream in place; backward passes the stream gradient to both inputs, so the branch's dx
// is added to the stream's (the one place where an activation gradient accumulates).
#pragma once
#include <cstddef>

namespace llm0 {

/// y[i] += x[i] for i < n (forward: stream += branch; backward: dstream += dbranch_input).
void residual_add(float* y, const float* x, size_t n);

/// y[i] = x[i] + branch[i] for i < n: the forward residual into a new buffer in one pass (the same
/// sum as a copy then residual_add, without the single-threaded copy's extra read and write).
void residual_add_to(float* y, const float* x, const float* branch, size_t n);

}  // namespace llm0
