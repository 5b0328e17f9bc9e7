// The training products of a linear layer in BF16 (issue 28): llm0's own vdpbf16ps GEMM
// (ops/bf16_gemm.h) vs oneDNN's BF16 matmul (Debian libdnnl-dev, when CMake finds it) vs float32
// sgemm (OpenBLAS), on llm0's shapes. For every layer shape of a config (q, kv, o, gate/up, down,
// lm_head) at tokens = B·T: forward Y = X Wᵀ, dX = dY W, dW += dYᵀ X. Each measurement is the
// whole product including the rounding to bf16 (oneDNN: a bf16_round pass of both operands, as
// training would run it; llm0: the rounding inside its packing). Rounds interleave the three
// contenders; per contender the median of the rounds is printed in GFLOP/s.
// Usage: bench_train_gemm CONFIG.json [tokens=2048] [rounds=7]   (threads: OMP_NUM_THREADS)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "config/config.h"
#include "ops/bf16_gemm.h"
#include "ops/bf16_kernels.h"

#if LLM0_HAVE_DNNL
#include <dnnl.hpp>
#endif

using namespace llm0;

namespace {
struct Shape { const char* name; int O, I; };
enum Product { Fwd, Dx, Dw };

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The product p of a layer [O, I] at N tokens as C[M, Nc] = A[M, K] · B[Nc, K]ᵀ.
struct Gemm { int M, Nc, K; GemmOperand A, B; long ldc; bool acc; };
Gemm as_gemm(Product p, int N, int O, int I, const float* x, const float* W, const float* dy) {
  switch (p) {
    case Fwd: return {N, O, I, {x, I, 1}, {W, I, 1}, O, false};       // Y[N,O] = X·Wᵀ
    case Dx: return {N, I, O, {dy, O, 1}, {W, 1, I}, I, false};       // dX[N,I] = dY·W
    default: return {O, I, N, {dy, 1, O}, {x, 1, I}, I, true};        // dW[O,I] += dYᵀ·X
  }
}

void run_sgemm(Product p, int N, int O, int I, const float* x, const float* W, const float* dy,
               float* C) {
  if (p == Fwd) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, O, I, 1, x, I, W, I, 0, C, O);
  if (p == Dx) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, I, O, 1, dy, O, W, I, 0, C, I);
  if (p == Dw) cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, O, I, N, 1, dy, O, x, I, 1, C, I);
}

#if LLM0_HAVE_DNNL
// oneDNN matmul C[M, Nc] (+)= A[M, K] · Bt[K, Nc] with A and B given by strides (bf16 copies).
struct DnnlGemm {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream s{eng};
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  std::vector<uint16_t> a16, b16;
  Gemm g;
  const float *ap, *bp;
  DnnlGemm(const Gemm& gm, float* C) : g(gm), ap(gm.A.p), bp(gm.B.p) {
    using dt = dnnl::memory::data_type;
    const long asz = std::max(g.A.rs * (g.M - 1) + g.A.ks * (g.K - 1) + 1, 1L);
    const long bsz = std::max(g.B.rs * (g.Nc - 1) + g.B.ks * (g.K - 1) + 1, 1L);
    a16.resize(asz); b16.resize(bsz);
    dnnl::memory::desc amd({g.M, g.K}, dt::bf16, {g.A.rs, g.A.ks});
    dnnl::memory::desc bmd({g.K, g.Nc}, dt::bf16, {g.B.ks, g.B.rs});
    dnnl::memory::desc cmd({g.M, g.Nc}, dt::f32, {g.ldc, 1});
    dnnl::primitive_attr attr;
    if (g.acc) { dnnl::post_ops po; po.append_sum(1.0f); attr.set_post_ops(po); }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), attr, eng);
    prim = dnnl::matmul(pd);
    a = dnnl::memory(amd, eng, a16.data());
    b = dnnl::memory(bmd, eng, b16.data());
    c = dnnl::memory(cmd, eng, C);
  }
  void run() {
    bf16_round(a16.data(), ap, (long)a16.size());
    bf16_round(b16.data(), bp, (long)b16.size());
    prim.execute(s, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    s.wait();
  }
};
#endif
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: bench_train_gemm CONFIG.json [tokens] [rounds]\n"); return 2; }
  const ModelConfig cfg = ModelConfig::from_file(argv[1]);
  const int N = argc > 2 ? std::stoi(argv[2]) : 2048, rounds = argc > 3 ? std::stoi(argv[3]) : 7;
  const int C = cfg.hidden_size, D = cfg.head_dim;
  const Shape shapes[] = {{"q_proj", cfg.num_attention_heads * D, C},
                          {"k/v_proj", cfg.num_key_value_heads * D, C},
                          {"o_proj", C, cfg.num_attention_heads * D},
                          {"gate/up", cfg.intermediate_size, C},
                          {"down", C, cfg.intermediate_size},
                          {"lm_head", cfg.vocab_size, C}};
  std::printf("%s tokens=%d rounds=%d; GFLOP/s medians: sgemm f32 | llm0 bf16 | oneDNN bf16\n",
              argv[1], N, rounds);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  double tot[3] = {0, 0, 0};  // seconds summed over shapes and products (medians)
  for (const Shape& s : shapes) {
    std::vector<float> x((size_t)N * s.I), W((size_t)s.O * s.I), dy((size_t)N * s.O),
        out((size_t)std::max<long>((long)N * std::max(s.O, s.I), (long)s.O * s.I));
    for (auto* v : {&x, &W, &dy}) for (float& e : *v) e = nd(rng);
    for (Product p : {Fwd, Dx, Dw}) {
      const Gemm g = as_gemm(p, N, s.O, s.I, x.data(), W.data(), dy.data());
      std::vector<double> t[3];
#if LLM0_HAVE_DNNL
      DnnlGemm dn(g, out.data());
#endif
      for (int r = 0; r < rounds; ++r) {
        t[0].push_back(seconds([&] { run_sgemm(p, N, s.O, s.I, x.data(), W.data(), dy.data(), out.data()); }));
        t[1].push_back(seconds([&] { gemm_bf16(out.data(), g.ldc, g.A, g.B, g.M, g.Nc, g.K, g.acc); }));
#if LLM0_HAVE_DNNL
        t[2].push_back(seconds([&] { dn.run(); }));
#else
        t[2].push_back(0);
#endif
      }
      const double flop = 2.0 * N * s.O * s.I;
      std::printf("%-9s %-3s O=%-5d I=%-5d", s.name, p == Fwd ? "fwd" : p == Dx ? "dX" : "dW", s.O, s.I);
      for (int c = 0; c < 3; ++c) {
        const double m = median(t[c]);
        tot[c] += m;
        std::printf(" | %7.1f", m > 0 ? flop / m * 1e-9 : 0.0);
      }
      std::printf("\n");
    }
  }
  std::printf("total ms (sum of medians): sgemm %.2f | llm0 bf16 %.2f | oneDNN bf16 %.2f\n",
              tot[0] * 1e3, tot[1] * 1e3, tot[2] * 1e3);
  return 0;
}
