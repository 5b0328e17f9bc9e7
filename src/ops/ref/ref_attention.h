// Naive double-precision reference of causal scaled dot-product attention with grouped KV heads
// (arXiv:1706.03762 eq. 1; GQA arXiv:2305.13245; HF repeat_kv): for each query head h, KV head
// g = h / (H / Hkv). Query t sits at absolute position i = q_offset + t and sees keys j <= i
// (and j > i - W with a sliding window W = d.window > 0); optional sink logits (gpt-oss) join each
// softmax's normaliser and carry no value.
// Same layouts as ops/attention.h: q [B, Tq, H, D], k [B, Tk, Hkv, D], v [B, Tk, Hkv, Dv],
// out [B, Tq, H, Dv], lse [B, H, Tq]. No blocking, no BLAS: one query row at a time.
#pragma once
#include <cstdint>

#include "ops/attention.h"

namespace llm0::ref {

/// out = softmax(scale · q kᵀ over the visible keys [, sink_h]) v, lse = log(Σ_j exp(scale q·k_j)
/// [+ exp(sink_h)]) (lse may be null). `sinks` [H] in double (null = none; d.sinks is ignored so
/// that finite differences can perturb them). Returns the number of q·k scores it computed (one
/// per visible key per query row and head). Throws llm0::Error on inconsistent dims.
uint64_t attention_forward(double* out, double* lse, const double* q, const double* k,
                           const double* v, const AttentionDims& d,
                           const double* sinks = nullptr);

}  // namespace llm0::ref
