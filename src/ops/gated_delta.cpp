// The gated delta rule, recurrent and chunked forms, and the chunked backward. See gated_delta.h
// and docs/derivations/gated_delta.md (symbols: γ = within-chunk cumulative log-decay, A the
// strictly lower [L, L] matrix of the UT transform, 𝒯 = (I + A)⁻¹, W = 𝒯·diag(β e^γ)·K,
// Ũ = 𝒯·diag(β)·V, U = Ũ − W·S₀, P = (e^{γ_t − γ_s} q_t·k_s)_{s ≤ t}).
#include "ops/gated_delta.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/check.h"

namespace llm0 {

namespace {

void check_dims(const GatedDeltaDims& d) {
  LLM0_CHECK(d.B > 0 && d.T > 0 && d.nk > 0 && d.nv > 0 && d.dk > 0 && d.dv > 0 && d.chunk > 0,
             "gated delta rule: non-positive dims B={} T={} nk={} nv={} dk={} dv={} chunk={}", d.B,
             d.T, d.nk, d.nv, d.dk, d.dv, d.chunk);
  LLM0_CHECK(d.nv % d.nk == 0,
             "gated delta rule: linear_num_value_heads={} is not a multiple of "
             "linear_num_key_heads={}",
             d.nv, d.nk);
}

// C[M, N] = alpha · op(A) · op(B) + beta · C (row-major, leading dims given).
void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
              K, alpha, A, lda, B, ldb, beta, C, ldc);
}

float dot(const float* a, const float* b, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// One chunk of one value head: pointers to its first row and the row strides of the tensors.
struct ChunkView {
  int L;                     // true length of this chunk (≤ d.chunk)
  const float *q, *k;        // [L, dk], row stride qs
  const float *v;            // [L, dv], row stride vs
  const float *g, *beta;     // [L], stride nv
  int qs, vs, gs;
};

// Per-thread buffers of one chunk (forward quantities, then backward ones). Sized by the call's
// chunk length and head dims; grown once per thread.
struct ChunkBuf {
  int Lmax, dk, dv, dx;  // dx = dk + dv: the joint right-hand side [K-part | V-part]
  float *gam, *eg, *ieg, *G, *KK, *QK, *A, *Tm, *P, *X, *U, *PU, *Qe, *Kd;
  float *dgam, *dQe, *dP, *dU, *dX, *dY, *dA, *Bm, *Cm, *dKd, *dS0, *dS;

  ChunkBuf(const GatedDeltaDims& d, bool backward) {
    static thread_local std::vector<float> store;
    Lmax = d.chunk, dk = d.dk, dv = d.dv, dx = d.dk + d.dv;
    const size_t L = Lmax, LL = L * L;
    const size_t fwd = 3 * L + 6 * LL + L * dx + 2 * L * dv + 2 * L * dk;
    const size_t bwd = L + 5 * LL + 2 * L * dk + L * dv + 2 * L * dx + 2 * (size_t)dk * dv;
    const size_t n = fwd + (backward ? bwd : 0);
    if (store.size() < n) store.resize(n);
    float* p = store.data();
    auto take = [&p](size_t m) { float* r = p; p += m; return r; };
    gam = take(L), eg = take(L), ieg = take(L);
    G = take(LL), KK = take(LL), QK = take(LL), A = take(LL), Tm = take(LL), P = take(LL);
    X = take(L * dx), U = take(L * dv), PU = take(L * dv), Qe = take(L * dk), Kd = take(L * dk);
    if (!backward) return;
    dgam = take(L), dQe = take(L * dk), dP = take(LL), dU = take(L * dv), dX = take(L * dx);
    dY = take(L * dx), dA = take(LL), Bm = take(LL), Cm = take(LL), dKd = take(L * dk);
    dS0 = take((size_t)dk * dv), dS = take((size_t)dk * dv);
  }
};

// The key head's products of chunk c, shared by its r value heads: KKᵀ (lower triangle, ssyrk)
// and QKᵀ.
void chunk_products(ChunkBuf& b, const ChunkView& c) {
  const int L = c.L, Lm = b.Lmax, dk = b.dk;
  cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, L, dk, 1.0f, c.k, c.qs, 0.0f, b.KK, Lm);
  gemm(false, true, L, L, dk, 1.0f, c.q, c.qs, c.k, c.qs, 0.0f, b.QK, Lm);  // [L, L]
}

// Decays of chunk c: γ = cumsum(g), e^γ, e^{−γ} and G = (e^{γ_t − γ_s})_{s ≤ t}. While |γ| ≤ 40
// G_ts = e^{γ_t}·e^{−γ_s} (2·L exps; both factors and the product stay normal floats), else one
// exp per visible pair.
void chunk_decays(ChunkBuf& b, const ChunkView& c) {
  const int L = c.L, Lm = b.Lmax;
  float acc = 0, span = 0;
  for (int t = 0; t < L; ++t) {
    b.gam[t] = acc += c.g[(size_t)t * c.gs];
    span = std::max(span, std::fabs(acc));
    b.eg[t] = std::exp(acc), b.ieg[t] = std::exp(-acc);
  }
  const bool factor = span <= 40.0f;
  for (int t = 0; t < L; ++t) {
    float* Gt = b.G + (size_t)t * Lm;
    for (int s = 0; s <= t; ++s)
      Gt[s] = factor ? b.eg[t] * b.ieg[s] : std::exp(b.gam[t] - b.gam[s]);
    std::fill(Gt + t + 1, Gt + L, 0.0f);
  }
}

// Forward quantities of chunk c given its start state S0 [dk, dv] and chunk_products: γ, G, A, 𝒯,
// X = 𝒯Y (W = X[:, :dk], Ũ = X[:, dk:]), U = Ũ − W S0, Qe = e^γ ⊙ Q, Kd = e^{γ_L − γ} ⊙ K, P.
void chunk_prepare(ChunkBuf& b, const ChunkView& c, const float* S0) {
  const int L = c.L, Lm = b.Lmax, dk = b.dk, dv = b.dv, dx = b.dx;
  chunk_decays(b, c);
  const float gL = b.gam[L - 1];
  for (int t = 0; t < L; ++t) {
    const float bt = c.beta[(size_t)t * c.gs];
    float* Trow = b.Tm + (size_t)t * Lm;  // 𝒯_t = e_t − Σ_{s<t} A_ts 𝒯_s (unit lower triangular)
    std::fill(Trow, Trow + L, 0.0f);
    Trow[t] = 1.0f;
    for (int s = 0; s < t; ++s) {
      const float a = bt * b.G[(size_t)t * Lm + s] * b.KK[(size_t)t * Lm + s];
      b.A[(size_t)t * Lm + s] = a;
      const float* Ts = b.Tm + (size_t)s * Lm;
      for (int j = 0; j <= s; ++j) Trow[j] -= a * Ts[j];
    }
    const float eg = b.eg[t], eL = std::exp(gL - b.gam[t]);
    const float *qt = c.q + (size_t)t * c.qs, *kt = c.k + (size_t)t * c.qs;
    const float* vt = c.v + (size_t)t * c.vs;
    float* Yt = b.X + (size_t)t * dx;  // Y, made X in place below
    for (int i = 0; i < dk; ++i) {
      Yt[i] = bt * eg * kt[i];
      b.Qe[(size_t)t * dk + i] = eg * qt[i];
      b.Kd[(size_t)t * dk + i] = eL * kt[i];
    }
    for (int j = 0; j < dv; ++j) Yt[dk + j] = bt * vt[j];
    float* Pt = b.P + (size_t)t * Lm;
    for (int s = 0; s < L; ++s) Pt[s] = b.G[(size_t)t * Lm + s] * b.QK[(size_t)t * Lm + s];
  }
  cblas_strmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, L, dx, 1.0f, b.Tm,
              Lm, b.X, dx);  // X = 𝒯 Y
  for (int t = 0; t < L; ++t)
    std::memcpy(b.U + (size_t)t * dv, b.X + (size_t)t * dx + dk, dv * sizeof(float));
  gemm(false, false, L, dv, dk, -1.0f, b.X, dx, S0, dv, 1.0f, b.U, dv);  // U = Ũ − W S0
}

ChunkView chunk_view(const float* q, const float* k, const float* v, const float* g,
                     const float* beta, const GatedDeltaDims& d, int b, int h, int c) {
  const int kh = h / (d.nv / d.nk), t0 = c * d.chunk;
  const size_t row = (size_t)b * d.T + t0;
  return {std::min(d.chunk, d.T - t0),
          q + (row * d.nk + kh) * d.dk,
          k + (row * d.nk + kh) * d.dk,
          v + (row * d.nv + h) * d.dv,
          g + row * d.nv + h,
          beta + row * d.nv + h,
          d.nk * d.dk,
          d.nv * d.dv,
          d.nv};
}

}  // namespace

void gated_delta_recurrent(float* o, float* state, const float* q, const float* k, const float* v,
                           const float* g, const float* beta, const GatedDeltaDims& d) {
  check_dims(d);
  const int r = d.nv / d.nk, dk = d.dk, dv = d.dv;
#pragma omp parallel for schedule(static) if (d.B * d.nv > 1)
  for (int bh = 0; bh < d.B * d.nv; ++bh) {
    const int b = bh / d.nv, h = bh % d.nv, kh = h / r;
    float* S = state + (size_t)bh * dk * dv;  // [dk, dv]
    std::vector<float> u(dv);
    for (int t = 0; t < d.T; ++t) {
      const size_t row = (size_t)b * d.T + t;
      const float *qt = q + (row * d.nk + kh) * dk, *kt = k + (row * d.nk + kh) * dk;
      const float* vt = v + (row * d.nv + h) * dv;
      const float a = std::exp(g[row * d.nv + h]), bt = beta[row * d.nv + h];
      float* ot = o + (row * d.nv + h) * dv;
      std::fill(u.begin(), u.end(), 0.0f);
      for (int i = 0; i < dk; ++i) {  // S ← a S; u = Sᵀk
        float* Si = S + (size_t)i * dv;
        for (int j = 0; j < dv; ++j) {
          Si[j] *= a;
          u[j] += kt[i] * Si[j];
        }
      }
      for (int j = 0; j < dv; ++j) u[j] = bt * (vt[j] - u[j]);
      std::fill(ot, ot + dv, 0.0f);
      for (int i = 0; i < dk; ++i) {  // S ← S + k uᵀ; o = Sᵀq
        float* Si = S + (size_t)i * dv;
        for (int j = 0; j < dv; ++j) {
          Si[j] += kt[i] * u[j];
          ot[j] += qt[i] * Si[j];
        }
      }
    }
  }
}

void gated_delta_chunked(float* o, float* state, float* chunk_states, const float* q,
                         const float* k, const float* v, const float* g, const float* beta,
                         const GatedDeltaDims& d) {
  check_dims(d);
  const int r = d.nv / d.nk, dk = d.dk, dv = d.dv, nc = d.n_chunks();
  // One thread per (sequence, key head): its r value heads share the chunk's KKᵀ and QKᵀ.
#pragma omp parallel for schedule(static) if (d.B * d.nk > 1)
  for (int bk = 0; bk < d.B * d.nk; ++bk) {
    const int b = bk / d.nk, kh = bk % d.nk;
    ChunkBuf buf(d, false);
    for (int c = 0; c < nc; ++c) {
      chunk_products(buf, chunk_view(q, k, v, g, beta, d, b, kh * r, c));
      for (int h = kh * r; h < kh * r + r; ++h) {
        const size_t bh = (size_t)b * d.nv + h;
        float* S = state + bh * dk * dv;  // [dk, dv]
        if (chunk_states)
          std::memcpy(chunk_states + (bh * nc + c) * dk * dv, S, (size_t)dk * dv * sizeof(float));
        const ChunkView cv = chunk_view(q, k, v, g, beta, d, b, h, c);
        chunk_prepare(buf, cv, S);
        // O = P U + Qe S0 (P lower triangular: strmm on a copy of U), then S ← e^{γ_L} S0 + Kdᵀ U.
        std::memcpy(buf.PU, buf.U, (size_t)cv.L * dv * sizeof(float));
        cblas_strmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, cv.L, dv,
                    1.0f, buf.P, buf.Lmax, buf.PU, dv);
        gemm(false, false, cv.L, dv, dk, 1.0f, buf.Qe, dk, S, dv, 1.0f, buf.PU, dv);
        float* oc = o + (((size_t)b * d.T + (size_t)c * d.chunk) * d.nv + h) * dv;
        for (int t = 0; t < cv.L; ++t)
          std::memcpy(oc + (size_t)t * cv.vs, buf.PU + (size_t)t * dv, dv * sizeof(float));
        gemm(true, false, dk, dv, cv.L, 1.0f, buf.Kd, dk, buf.U, dv, buf.eg[cv.L - 1], S, dv);
      }
    }
  }
}

namespace {

// Backward of one chunk. On entry b.dS = ∂L/∂(state after the chunk); on exit b.dS0 = ∂L/∂S0.
// Writes dv, dg, dβ of the chunk's rows and accumulates into dq, dk (rows strided by qs).
void chunk_backward(ChunkBuf& b, const ChunkView& c, const float* S0, const float* doc,
                    float* dqc, float* dkc, float* dvc, float* dgc, float* dbc) {
  const int L = c.L, Lm = b.Lmax, dk = b.dk, dv = b.dv, dx = b.dx;
  const size_t SS = (size_t)dk * dv;
  std::fill(b.dgam, b.dgam + L, 0.0f);
  for (int t = 0; t < L; ++t) dbc[(size_t)t * c.gs] = 0.0f;
  // O = Qe S0 + P U.
  gemm(false, true, L, dk, dv, 1.0f, doc, c.vs, S0, dv, 0.0f, b.dQe, dk);
  gemm(true, false, dk, dv, L, 1.0f, b.Qe, dk, doc, c.vs, 0.0f, b.dS0, dv);
  gemm(false, true, L, L, dv, 1.0f, doc, c.vs, b.U, dv, 0.0f, b.dP, Lm);
  gemm(true, false, L, dv, L, 1.0f, b.P, Lm, doc, c.vs, 0.0f, b.dU, dv);
  // S_L = e^{γ_L} S0 + Kdᵀ U.
  const float eL = b.eg[L - 1];
  float dgL = 0;
  for (size_t i = 0; i < SS; ++i) {
    dgL += S0[i] * b.dS[i];
    b.dS0[i] += eL * b.dS[i];
  }
  dgL *= eL;
  gemm(false, true, L, dk, dv, 1.0f, b.U, dv, b.dS, dv, 0.0f, b.dKd, dk);
  gemm(false, false, L, dv, dk, 1.0f, b.Kd, dk, b.dS, dv, 1.0f, b.dU, dv);
  // U = Ũ − W S0, [W | Ũ] = X = 𝒯 Y.
  gemm(false, true, L, dk, dv, -1.0f, b.dU, dv, S0, dv, 0.0f, b.dX, dx);
  for (int t = 0; t < L; ++t)
    std::memcpy(b.dX + (size_t)t * dx + dk, b.dU + (size_t)t * dv, dv * sizeof(float));
  gemm(true, false, dk, dv, L, -1.0f, b.X, dx, b.dU, dv, 1.0f, b.dS0, dv);
  gemm(true, false, L, dx, L, 1.0f, b.Tm, Lm, b.dX, dx, 0.0f, b.dY, dx);   // dY = 𝒯ᵀ dX
  gemm(false, true, L, L, dx, -1.0f, b.dY, dx, b.X, dx, 0.0f, b.dA, Lm);   // dA = −dY Xᵀ
  // A_ts = β_t e^{γ_t−γ_s} k_t·k_s (s < t) and P_ts = e^{γ_t−γ_s} q_t·k_s (s ≤ t).
  for (int t = 0; t < L; ++t) {
    const float bt = c.beta[(size_t)t * c.gs];
    float dbt = 0;
    for (int s = 0; s < L; ++s) {
      const size_t ts = (size_t)t * Lm + s;
      const float G = b.G[ts];
      float Bts = 0, Cts = 0;
      if (s < t) {
        const float da = b.dA[ts], E = da * b.A[ts];
        dbt += da * G * b.KK[ts];
        b.dgam[t] += E;
        b.dgam[s] -= E;
        Bts = da * bt * G;
      }
      if (s <= t) {
        const float pp = b.P[ts] * b.dP[ts];
        b.dgam[t] += pp;
        b.dgam[s] -= pp;
        Cts = b.dP[ts] * G;
      }
      b.Bm[ts] = Bts;
      b.Cm[ts] = Cts;
    }
    dbc[(size_t)t * c.gs] += dbt;
  }
  gemm(false, false, L, dk, L, 1.0f, b.Cm, Lm, c.k, c.qs, 1.0f, dqc, c.qs);  // dQ += C K
  gemm(false, false, L, dk, L, 1.0f, b.Bm, Lm, c.k, c.qs, 1.0f, dkc, c.qs);  // dK += B K
  gemm(true, false, L, dk, L, 1.0f, b.Bm, Lm, c.k, c.qs, 1.0f, dkc, c.qs);   //     + Bᵀ K
  gemm(true, false, L, dk, L, 1.0f, b.Cm, Lm, c.q, c.qs, 1.0f, dkc, c.qs);   //     + Cᵀ Q
  // Qe = e^γ Q, Y = [β e^γ K | β V], Kd = e^{γ_L − γ} K: per-row terms.
  for (int t = 0; t < L; ++t) {
    const float eg = std::exp(b.gam[t]), el = std::exp(b.gam[L - 1] - b.gam[t]);
    const float bt = c.beta[(size_t)t * c.gs];
    const float *qt = c.q + (size_t)t * c.qs, *kt = c.k + (size_t)t * c.qs;
    const float* vt = c.v + (size_t)t * c.vs;
    const float *dQe = b.dQe + (size_t)t * dk, *dKb = b.dY + (size_t)t * dx;
    const float *dVb = dKb + dk, *dKd = b.dKd + (size_t)t * dk;
    float *dqt = dqc + (size_t)t * c.qs, *dkt = dkc + (size_t)t * c.qs;
    float* dvt = dvc + (size_t)t * c.vs;
    const float qd = dot(qt, dQe, dk), kd = dot(kt, dKb, dk), kdd = dot(kt, dKd, dk);
    for (int i = 0; i < dk; ++i) {
      dqt[i] += eg * dQe[i];
      dkt[i] += bt * eg * dKb[i] + el * dKd[i];
    }
    for (int j = 0; j < dv; ++j) dvt[j] = bt * dVb[j];
    dbc[(size_t)t * c.gs] += eg * kd + dot(vt, dVb, dv);
    b.dgam[t] += eg * qd + bt * eg * kd - el * kdd;
    b.dgam[L - 1] += el * kdd;
  }
  b.dgam[L - 1] += dgL;
  float acc = 0;  // γ = cumsum(g): dg_t = Σ_{t' ≥ t} dγ_t'
  for (int t = L - 1; t >= 0; --t) dgc[(size_t)t * c.gs] = acc += b.dgam[t];
}

}  // namespace

void gated_delta_chunked_backward(float* dq, float* dk, float* dv, float* dg, float* dbeta,
                                  float* dstate_init, const float* do_, const float* dstate_final,
                                  const float* q, const float* k, const float* v, const float* g,
                                  const float* beta, const float* chunk_states,
                                  const GatedDeltaDims& d) {
  check_dims(d);
  const int r = d.nv / d.nk, nc = d.n_chunks();
  const size_t SS = (size_t)d.dk * d.dv;
  std::fill(dq, dq + (size_t)d.B * d.T * d.nk * d.dk, 0.0f);
  std::fill(dk, dk + (size_t)d.B * d.T * d.nk * d.dk, 0.0f);
  // One thread per (sequence, key head): its r value heads accumulate into the same dq, dk rows.
#pragma omp parallel for schedule(static) if (d.B * d.nk > 1)
  for (int bk = 0; bk < d.B * d.nk; ++bk) {
    const int b = bk / d.nk, kh = bk % d.nk;
    ChunkBuf buf(d, true);
    for (int h = kh * r; h < kh * r + r; ++h) {
      const size_t bh = (size_t)b * d.nv + h;
      if (dstate_final)
        std::memcpy(buf.dS, dstate_final + bh * SS, SS * sizeof(float));
      else
        std::fill(buf.dS, buf.dS + SS, 0.0f);
      for (int c = nc - 1; c >= 0; --c) {
        const float* S0 = chunk_states + (bh * nc + c) * SS;
        const ChunkView cv = chunk_view(q, k, v, g, beta, d, b, h, c);
        chunk_products(buf, cv);
        chunk_prepare(buf, cv, S0);
        const size_t row = (size_t)b * d.T + (size_t)c * d.chunk;
        chunk_backward(buf, cv, S0, do_ + (row * d.nv + h) * d.dv,
                       dq + (row * d.nk + kh) * d.dk, dk + (row * d.nk + kh) * d.dk,
                       dv + (row * d.nv + h) * d.dv, dg + row * d.nv + h, dbeta + row * d.nv + h);
        std::memcpy(buf.dS, buf.dS0, SS * sizeof(float));
      }
      if (dstate_init) std::memcpy(dstate_init + bh * SS, buf.dS, SS * sizeof(float));
    }
  }
}

}  // namespace llm0
