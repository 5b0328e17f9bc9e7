// Naive double-precision reference of the gated delta rule (arXiv:2412.06464 eq. 10; HF
// modeling_qwen3_next.py torch_recurrent_gated_delta_rule): one token at a time, per value head h
// reading key head h / (nv / nk), S [dk, dv]:
//   S ← exp(g_t)·S;  u = β_t (v_t − Sᵀk_t);  S ← S + k_t uᵀ;  o_t = Sᵀq_t.
// Same layouts as ops/gated_delta.h: q, k [B, T, nk, dk]; v, o [B, T, nv, dv]; g, β [B, T, nv];
// state [B, nv, dk, dv]. No chunks, no BLAS.
#pragma once

#include "ops/gated_delta.h"

namespace llm0::ref {

/// o [B, T, nv, dv] overwritten; state [B, nv, dk, dv] initial on entry, final on exit
/// (d.chunk is ignored). Throws llm0::Error on inconsistent dims.
void gated_delta_forward(double* o, double* state, const double* q, const double* k,
                         const double* v, const double* g, const double* beta,
                         const GatedDeltaDims& d);

}  // namespace llm0::ref
