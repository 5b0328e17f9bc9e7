// The gated delta rule (Gated DeltaNet, Yang, Kautz, Hatamizadeh, arXiv:2412.06464 eq. 10; HF
// transformers/models/qwen3_next/modeling_qwen3_next.py torch_recurrent_gated_delta_rule /
// torch_chunk_gated_delta_rule). Per value head h, reading key head h / r (r = nv / nk), a state
// S [dk, dv] evolves token by token:
//   S ← exp(g_t)·S;   u_t = β_t (v_t − Sᵀk_t);   S ← S + k_t u_tᵀ;   o_t = Sᵀq_t.
// Two forms give the same o and final S: *recurrent* (one rank-1 update per token: decode) and
// *chunked* (WY / UT transform of the DeltaNet chunk, Yang et al. arXiv:2406.06484 §3.2, with the
// decay of arXiv:2412.06464 §3.3: the work is matrix products over chunks of L tokens; a last
// partial chunk is processed at its true length, so no padded position ever touches S).
// Derivation of the chunk form and its backward: docs/derivations/gated_delta.md.
// Layouts (row-major, outermost first): q, k [B, T, nk, dk]; v, o [B, T, nv, dv]; g, β [B, T, nv];
// state [B, nv, dk, dv]. g is the log-decay (≤ 0 in the layer; any value is accepted here).
#pragma once

namespace llm0 {

/// Sizes of one gated-delta call. chunk = L, the chunk length of the chunked form.
struct GatedDeltaDims {
  int B = 0, T = 0;    // sequences, tokens per sequence
  int nk = 0, nv = 0;  // key heads, value heads (nv % nk == 0)
  int dk = 0, dv = 0;  // key / value head dims
  int chunk = 64;      // L
  int n_chunks() const { return (T + chunk - 1) / chunk; }
};

/// Recurrent form. state [B, nv, dk, dv]: on entry the initial state (zeros at a sequence's
/// start), on exit the final one. o [B, T, nv, dv] overwritten. Throws llm0::Error on bad dims.
void gated_delta_recurrent(float* o, float* state, const float* q, const float* k, const float* v,
                           const float* g, const float* beta, const GatedDeltaDims& d);

/// Chunked form; same contract as gated_delta_recurrent. chunk_states (may be null)
/// [B, nv, n_chunks, dk, dv] receives the state at the start of every chunk (for backward).
void gated_delta_chunked(float* o, float* state, float* chunk_states, const float* q,
                         const float* k, const float* v, const float* g, const float* beta,
                         const GatedDeltaDims& d);

/// Backward of the chunked form (by hand, docs/derivations/gated_delta.md). do_ [B, T, nv, dv];
/// chunk_states from gated_delta_chunked. dstate_final [B, nv, dk, dv] = ∂L/∂(final state) (null:
/// zero). Overwrites dq, dk [B, T, nk, dk], dv [B, T, nv, dv], dg, dbeta [B, T, nv], and
/// dstate_init [B, nv, dk, dv] = ∂L/∂(initial state) when not null.
void gated_delta_chunked_backward(float* dq, float* dk, float* dv, float* dg, float* dbeta,
                                  float* dstate_init, const float* do_, const float* dstate_final,
                                  const float* q, const float* k, const float* v, const float* g,
                                  const float* beta, const float* chunk_states,
                                  const GatedDeltaDims& d);

}  // namespace llm0
