// Gated attention (Qiu et al., arXiv:2505.06708, the G1 position: an elementwise sigmoid gate on
// the attention output before o_proj; HF modeling_qwen3_next.py Qwen3NextAttention): q_proj
// produces per head [query (D) | gate (D)] — interleaved per head, [N, H, 2·D] — and
//   y = attn ⊙ σ(gate)   [N, H, D],   then o_proj(y).
#pragma once
#include <cstddef>

namespace llm0 {

/// qg [N, H, 2·D] → q [N, H, D] (the query halves), gate [N, H, D].
void split_query_gate(const float* qg, float* q, float* gate, int N, int H, int D);
/// dq [N, H, D], dgate [N, H, D] → dqg [N, H, 2·D] (the inverse of split_query_gate).
void merge_query_gate(float* dqg, const float* dq, const float* dgate, int N, int H, int D);
/// y[i] = attn[i] · σ(gate[i]) over n values (y may be attn).
void output_gate_forward(float* y, const float* attn, const float* gate, size_t n);
/// From dy [n] (∂L/∂y): dgate = dy · attn · σ'(gate) and dattn = dy · σ(gate) (both overwritten;
/// dattn may be dy).
void output_gate_backward(float* dattn, float* dgate, const float* dy, const float* attn,
                          const float* gate, size_t n);

}  // namespace llm0
