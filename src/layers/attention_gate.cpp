// Gated attention output. See attention_gate.h.
#include "layers/attention_gate.h"

#include <cmath>
#include <cstring>

namespace llm0 {

namespace {
float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
}  // namespace

void split_query_gate(const float* qg, float* q, float* gate, int N, int H, int D) {
  for (size_t r = 0; r < (size_t)N * H; ++r) {
    std::memcpy(q + r * D, qg + r * 2 * D, (size_t)D * sizeof(float));
    std::memcpy(gate + r * D, qg + r * 2 * D + D, (size_t)D * sizeof(float));
  }
}

void merge_query_gate(float* dqg, const float* dq, const float* dgate, int N, int H, int D) {
  for (size_t r = 0; r < (size_t)N * H; ++r) {
    std::memcpy(dqg + r * 2 * D, dq + r * D, (size_t)D * sizeof(float));
    std::memcpy(dqg + r * 2 * D + D, dgate + r * D, (size_t)D * sizeof(float));
  }
}

void output_gate_forward(float* y, const float* attn, const float* gate, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = attn[i] * sigmoid(gate[i]);
}

void output_gate_backward(float* dattn, float* dgate, const float* dy, const float* attn,
                          const float* gate, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float s = sigmoid(gate[i]), d = dy[i];
    dgate[i] = d * attn[i] * s * (1.0f - s);
    dattn[i] = d * s;
  }
}

}  // namespace llm0
