// Naive double-precision reference of the residual add (arXiv:1512.03385): y += x, n values.
#pragma once
#include <cstddef>

namespace llm0::ref {

/// y[i] += x[i] for i < n.
void residual_add(double* y, const double* x, size_t n);

}  // namespace llm0::ref
