// Gated delta rule: chunked = recurrent = the double reference (outputs and final state) for every
// T = 1 … 2·L + 1 at several chunk lengths L (a last partial chunk must not touch the state), from
// a zero and a non-zero initial state, with every dimension different (nv = 3·nk); the chunked
// backward against central finite differences of the reference for q, k, v, g, β and the initial
// state, with an upstream gradient on the final state too.
#include <cmath>
#include <string>
#include <vector>

#include "core/check.h"
#include "ops/gated_delta.h"
#include "ops/ref/ref_gated_delta.h"
#include "test_util.h"

namespace llm0 {
namespace {

using test::all_close;
using test::rand_vec;
using test::to_double;

// Inputs as the layer makes them: q, k of unit length (l2norm), g ≤ 0, β in (0, 1).
struct Inputs {
  std::vector<float> q, k, v, g, beta, S0;
};

void unit_rows(std::vector<float>& x, int dk) {
  for (size_t r = 0; r < x.size() / dk; ++r) {
    double s = 0;
    for (int i = 0; i < dk; ++i) s += (double)x[r * dk + i] * x[r * dk + i];
    for (int i = 0; i < dk; ++i) x[r * dk + i] = (float)(x[r * dk + i] / std::sqrt(s + 1e-6));
  }
}

Inputs make_inputs(const GatedDeltaDims& d, std::mt19937& rng, bool zero_state) {
  const size_t NT = (size_t)d.B * d.T;
  Inputs in{rand_vec(NT * d.nk * d.dk, rng), rand_vec(NT * d.nk * d.dk, rng),
            rand_vec(NT * d.nv * d.dv, rng), rand_vec(NT * d.nv, rng, -1.0f, -0.01f),
            rand_vec(NT * d.nv, rng, 0.05f, 0.95f),
            rand_vec((size_t)d.B * d.nv * d.dk * d.dv, rng, -0.5f, 0.5f)};
  unit_rows(in.q, d.dk);
  unit_rows(in.k, d.dk);
  if (zero_state) std::fill(in.S0.begin(), in.S0.end(), 0.0f);
  return in;
}

TEST(OpsGatedDelta, ChunkedEqualsRecurrentEqualsReference) {
  GatedDeltaDims d;
  d.B = 2, d.nk = 2, d.nv = 6, d.dk = 5, d.dv = 7;
  unsigned seed = 1;
  for (int L : {1, 3, 8, 64}) {
    for (int T = 1; T <= 2 * L + 1; ++T) {
      for (bool zero_state : {true, false}) {
        d.T = T, d.chunk = L;
        SCOPED_TRACE(format("L={} T={} zero_state={}", L, T, zero_state));
        std::mt19937 rng(seed++);
        const Inputs in = make_inputs(d, rng, zero_state);
        const size_t no = (size_t)d.B * T * d.nv * d.dv;
        std::vector<float> o_rec(no), o_chk(no), S_rec = in.S0, S_chk = in.S0;
        gated_delta_recurrent(o_rec.data(), S_rec.data(), in.q.data(), in.k.data(), in.v.data(),
                              in.g.data(), in.beta.data(), d);
        std::vector<float> states((size_t)d.B * d.nv * d.n_chunks() * d.dk * d.dv);
        gated_delta_chunked(o_chk.data(), S_chk.data(), states.data(), in.q.data(), in.k.data(),
                            in.v.data(), in.g.data(), in.beta.data(), d);
        std::vector<double> o_ref(no), S_ref = to_double(in.S0);
        ref::gated_delta_forward(o_ref.data(), S_ref.data(), to_double(in.q).data(),
                                 to_double(in.k).data(), to_double(in.v).data(),
                                 to_double(in.g).data(), to_double(in.beta).data(), d);
        ASSERT_TRUE(all_close(o_rec, o_ref, 1e-4, 1e-5, "o recurrent", {d.B, T, d.nv, d.dv}));
        ASSERT_TRUE(all_close(o_chk, o_ref, 1e-4, 1e-5, "o chunked", {d.B, T, d.nv, d.dv}));
        ASSERT_TRUE(all_close(S_rec, S_ref, 1e-4, 1e-5, "S recurrent", {d.B, d.nv, d.dk, d.dv}));
        ASSERT_TRUE(all_close(S_chk, S_ref, 1e-4, 1e-5, "S chunked", {d.B, d.nv, d.dk, d.dv}));
        // The saved start state of the first chunk is the initial state.
        for (int bh = 0; bh < d.B * d.nv; ++bh)
          ASSERT_EQ(states[(size_t)bh * d.n_chunks() * d.dk * d.dv],
                    in.S0[(size_t)bh * d.dk * d.dv]);
      }
    }
  }
}

// Strong decay (g in (−8, −2): |γ| passes 40 within a chunk, where the chunked form stops
// factoring e^{γ_t − γ_s} as e^{γ_t}·e^{−γ_s}) and mild decay (|γ| ≤ 40 throughout): chunked =
// reference in both regimes, with the long chunk of the Qwen3-Next default (L = 64).
TEST(OpsGatedDelta, ChunkedMatchesReferenceAtStrongAndMildDecay) {
  GatedDeltaDims d;
  d.B = 1, d.nk = 2, d.nv = 4, d.dk = 6, d.dv = 5, d.T = 70, d.chunk = 64;
  for (float lo : {-8.0f, -0.6f}) {
    SCOPED_TRACE(format("g in ({}, {})", lo, lo / 4));
    std::mt19937 rng(11);
    Inputs in = make_inputs(d, rng, false);
    in.g = rand_vec(in.g.size(), rng, lo, lo / 4);
    const size_t no = (size_t)d.T * d.nv * d.dv;
    std::vector<float> o(no), S = in.S0;
    gated_delta_chunked(o.data(), S.data(), nullptr, in.q.data(), in.k.data(), in.v.data(),
                        in.g.data(), in.beta.data(), d);
    std::vector<double> o_ref(no), S_ref = to_double(in.S0);
    ref::gated_delta_forward(o_ref.data(), S_ref.data(), to_double(in.q).data(),
                             to_double(in.k).data(), to_double(in.v).data(),
                             to_double(in.g).data(), to_double(in.beta).data(), d);
    EXPECT_TRUE(all_close(o, o_ref, 1e-4, 1e-5, "o", {1, d.T, d.nv, d.dv}));
    EXPECT_TRUE(all_close(S, S_ref, 1e-4, 1e-5, "S", {1, d.nv, d.dk, d.dv}));
  }
}

// A chunk length longer than T and T split into calls give the same as one call: the state is
// the whole memory of the recurrence.
TEST(OpsGatedDelta, SplitCallsCarryTheState) {
  GatedDeltaDims d;
  d.B = 1, d.nk = 1, d.nv = 2, d.dk = 6, d.dv = 3, d.T = 23, d.chunk = 8;
  std::mt19937 rng(7);
  const Inputs in = make_inputs(d, rng, true);
  std::vector<float> o_one((size_t)d.T * d.nv * d.dv), S_one = in.S0;
  gated_delta_chunked(o_one.data(), S_one.data(), nullptr, in.q.data(), in.k.data(), in.v.data(),
                      in.g.data(), in.beta.data(), d);
  std::vector<float> o_split(o_one.size()), S = in.S0;
  int t0 = 0;
  for (int n : {5, 1, 9, 8}) {
    GatedDeltaDims p = d;
    p.T = n;
    gated_delta_chunked(o_split.data() + (size_t)t0 * d.nv * d.dv, S.data(), nullptr,
                        in.q.data() + (size_t)t0 * d.dk, in.k.data() + (size_t)t0 * d.dk,
                        in.v.data() + (size_t)t0 * d.nv * d.dv, in.g.data() + (size_t)t0 * d.nv,
                        in.beta.data() + (size_t)t0 * d.nv, p);
    t0 += n;
  }
  EXPECT_TRUE(all_close(o_split, o_one, 1e-5, 1e-6, "o"));
  EXPECT_TRUE(all_close(S, S_one, 1e-5, 1e-6, "S"));
}

TEST(OpsGatedDelta, ChunkedBackwardMatchesFiniteDifferences) {
  GatedDeltaDims d;
  d.B = 2, d.nk = 1, d.nv = 3, d.dk = 4, d.dv = 5;
  unsigned seed = 40;
  for (int L : {6, 7}) {
    d.T = 11, d.chunk = L;
    SCOPED_TRACE(format("L={} T={}", L, d.T));
    std::mt19937 rng(seed++);
    const Inputs in = make_inputs(d, rng, false);
    const size_t no = (size_t)d.B * d.T * d.nv * d.dv, ns = in.S0.size();
    const std::vector<float> r = test::upstream(no, rng), rS = test::upstream(ns, rng);
    // Fast backward.
    std::vector<float> o(no), S = in.S0;
    std::vector<float> states((size_t)d.B * d.nv * d.n_chunks() * d.dk * d.dv);
    gated_delta_chunked(o.data(), S.data(), states.data(), in.q.data(), in.k.data(), in.v.data(),
                        in.g.data(), in.beta.data(), d);
    std::vector<float> dq(in.q.size()), dk(in.k.size()), dv(in.v.size()), dg(in.g.size()),
        db(in.beta.size()), dS0(ns);
    gated_delta_chunked_backward(dq.data(), dk.data(), dv.data(), dg.data(), db.data(),
                                 dS0.data(), r.data(), rS.data(), in.q.data(), in.k.data(),
                                 in.v.data(), in.g.data(), in.beta.data(), states.data(), d);
    // Finite differences of L = <r, o> + <rS, S_final> through the reference.
    std::vector<double> q = to_double(in.q), k = to_double(in.k), v = to_double(in.v),
                        g = to_double(in.g), beta = to_double(in.beta), S0 = to_double(in.S0);
    auto loss = [&] {
      std::vector<double> od(no), Sd = S0;
      ref::gated_delta_forward(od.data(), Sd.data(), q.data(), k.data(), v.data(), g.data(),
                               beta.data(), d);
      double s = 0;
      for (size_t i = 0; i < no; ++i) s += r[i] * od[i];
      for (size_t i = 0; i < ns; ++i) s += rS[i] * Sd[i];
      return s;
    };
    EXPECT_TRUE(all_close(dq, test::fd_grad(q, loss), 1e-3, 1e-4, "dq"));
    EXPECT_TRUE(all_close(dk, test::fd_grad(k, loss), 1e-3, 1e-4, "dk"));
    EXPECT_TRUE(all_close(dv, test::fd_grad(v, loss), 1e-3, 1e-4, "dv"));
    EXPECT_TRUE(all_close(dg, test::fd_grad(g, loss), 1e-3, 1e-4, "dg"));
    EXPECT_TRUE(all_close(db, test::fd_grad(beta, loss), 1e-3, 1e-4, "dbeta"));
    EXPECT_TRUE(all_close(dS0, test::fd_grad(S0, loss), 1e-3, 1e-4, "dstate_init"));
  }
}

TEST(OpsGatedDelta, RejectsValueHeadsNotMultipleOfKeyHeads) {
  GatedDeltaDims d;
  d.B = 1, d.T = 2, d.nk = 2, d.nv = 3, d.dk = 2, d.dv = 2;
  std::vector<float> x(64), S(64);
  EXPECT_THROW(gated_delta_recurrent(x.data(), S.data(), x.data(), x.data(), x.data(), x.data(),
                                     x.data(), d),
               Error);
}

}  // namespace
}  // namespace llm0
