// Decode attention from a BF16 KV cache (H 8, D 64; Hkv 8, 4 (llm0-30m's layer) or 1) at Tk
// cached rows:
//   BM_AttentionDecodeBf16/0/Hkv/Tk: widen K and V in full, then attention_forward (sgemm);
//   BM_AttentionDecodeBf16/1/Hkv/Tk: attention_decode_rows, reading the BF16 rows as stored.
// One thread (set OMP_NUM_THREADS=1); compare the two rows of each Hkv, Tk. The layer takes the
// second only up to 2 query heads per KV head (layers/attention.cpp).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ops/attention.h"
#include "ops/attention_rows.h"
#include "ops/bf16_kernels.h"

using namespace llm0;

static void BM_AttentionDecodeBf16(benchmark::State& st) {
  const bool rows = st.range(0) == 1;
  const int Hkv = (int)st.range(1), Tk = (int)st.range(2), H = 8, D = 64;
  const size_t n = (size_t)Tk * Hkv * D;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> kf(n), vf(n), q((size_t)H * D), out((size_t)H * D), kw(n), vw(n);
  for (auto* x : {&kf, &vf, &q})
    for (float& e : *x) e = u(rng);
  std::vector<uint16_t> kb(n), vb(n);
  bf16_round(kb.data(), kf.data(), (long)n), bf16_round(vb.data(), vf.data(), (long)n);
  std::vector<const uint16_t*> kp((size_t)Tk), vp((size_t)Tk);
  for (int j = 0; j < Tk; ++j)
    kp[(size_t)j] = kb.data() + (long)j * Hkv * D, vp[(size_t)j] = vb.data() + (long)j * Hkv * D;
  AttentionDims d;
  d.Tk = Tk, d.q_offset = Tk - 1, d.H = H, d.Hkv = Hkv, d.D = D, d.Dv = D, d.scale = 0.125f;
  for (auto _ : st) {
    if (rows) {
      attention_decode_rows(out.data(), nullptr, q.data(), KvRowSet{nullptr, kp.data()},
                            KvRowSet{nullptr, vp.data()}, d);
    } else {
      bf16_widen(kw.data(), kb.data(), (long)n, bf16_kernel());
      bf16_widen(vw.data(), vb.data(), (long)n, bf16_kernel());
      attention_forward(out.data(), nullptr, q.data(), kw.data(), vw.data(), d);
    }
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_AttentionDecodeBf16)->ArgsProduct({{0, 1}, {8, 4, 1}, {192, 704, 2048}})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
