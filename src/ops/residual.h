// Residual connection (He et al., arXiv:1512.03385): y = x + f(x). Forward adds the branch into
// the stream in place; backward passes the stream gradient to both inputs, so the branch's dx
// is added to the stream's (the one place where an activation gradient accumulates).
#pragma once
#include <cstddef>

namespace llm0 {

/// y[i] += x[i] for i < n (forward: stream += branch; backward: dstream += dbranch_input).
void residual_add(float* y, const float* x, size_t n);

}  // namespace llm0
