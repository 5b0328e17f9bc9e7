// Serving engine micro-benchmark (issue 17, "Speed"): aggregate decode tokens/s of BatchEngine
// (serve/batch_engine.h) with 1, 4, 8 and 16 sequences decoding together — each step is ONE
// ragged forward, so every weight is read once per step for all of them — on random-init models
// of the default preset (configs/llm0-small.json, ~6M) and the ~30M preset (configs/llm0-30m.json).
// Beside them, one stream through Model::forward_cached with the model's own one-page cache and
// a default InferContext (fixed-order kernels, packed panels): what `llm0 generate` runs. The configurations run interleaved, round after round, and
// the table gives medians (min–max) and the ratio to the engine's 1-stream rate, so load from
// other processes hits all columns alike. A second table: prefill of a 200-token prompt (one
// step), and on the ~30M preset of a 1,000-token prompt in 64-token steps (the server's
// --prefill-chunk: its time to first token without the prefix cache), through the engine's
// fixed-order kernels against Model::forward_cached in a BLAS context (OpenBLAS sgemm, one call); a third: the
// fixed-order linear kernel against sgemm on one matrix at N = 1, 8, 64 rows.
//   build/bench_serve_engine [--threads T=1] [--rounds R=5] [--steps K=32] [--prompt P=32]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cblas.h>

#include "core/threads.h"
#include "model/infer_context.h"
#include "model/init.h"
#include "model/model.h"
#include "ops/linear_pack.h"
#include "ops/linear_rows.h"
#include "serve/batch_engine.h"

using namespace llm0;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int token(int s, int t, int V) { return (int)((7919L * s + 104729L * t + 13) % V); }

// Aggregate decode tokens/s of `streams` sequences (prompt P each, prefilled untimed), K steps.
double engine_rate(Model& m, int streams, int P, int K) {
  const int V = m.config().vocab_size, page = 16;
  BatchEngineOptions o;
  o.page_size = page, o.num_pages = streams * ((P + K + page - 1) / page);
  BatchEngine e(m, o);
  std::vector<SeqId> ids;
  std::vector<std::vector<int>> prompts((size_t)streams);
  std::vector<BatchEngine::Work> works;
  for (int s = 0; s < streams; ++s) {
    for (int t = 0; t < P; ++t) prompts[(size_t)s].push_back(token(s, t, V));
    ids.push_back(*e.open(prompts[(size_t)s], P + K));
    works.push_back({ids.back(), prompts[(size_t)s].data(), P});
  }
  std::vector<float> logits((size_t)streams * V);
  e.step(works, logits.data());
  std::vector<int> next((size_t)streams);
  const double t0 = now();
  for (int k = 0; k < K; ++k) {
    for (int s = 0; s < streams; ++s) {
      next[(size_t)s] = token(s, P + k, V);
      works[(size_t)s] = {ids[(size_t)s], &next[(size_t)s], 1};
    }
    e.step(works, logits.data());
  }
  return streams * K / (now() - t0);
}

// One stream through the model's own cache (Model::forward_cached in a default context, as
// `llm0 generate`: fixed-order kernels on the model's packed panels).
double contiguous_rate(Model& m, int P, int K) {
  const int V = m.config().vocab_size;
  ModelCache c = m.new_cache(P + K);
  InferContext ctx(m);
  std::vector<int> prompt;
  for (int t = 0; t < P; ++t) prompt.push_back(token(0, t, V));
  std::vector<float> logits((size_t)V);
  m.forward_cached(prompt.data(), P, c, ctx, logits.data(), true);
  const double t0 = now();
  for (int k = 0; k < K; ++k) {
    const int next = token(0, P + k, V);
    m.forward_cached(&next, 1, c, ctx, logits.data(), true);
  }
  return K / (now() - t0);
}

// Prefill tokens/s of one P-token prompt: the engine (steps of `chunk` tokens, fixed-order
// kernels) or Model::forward_cached (one call, a BLAS context: OpenBLAS sgemm).
double prefill_rate(Model& m, int P, int chunk, bool engine) {
  const int V = m.config().vocab_size;
  std::vector<int> prompt;
  for (int t = 0; t < P; ++t) prompt.push_back(token(1, t, V));
  std::vector<float> logits((size_t)V);
  if (!engine) {
    ModelCache c = m.new_cache(P);
    InferContext ctx(m);
    ctx.set_fixed_order(false);
    const double t0 = now();
    m.forward_cached(prompt.data(), P, c, ctx, logits.data(), true);
    return P / (now() - t0);
  }
  BatchEngineOptions o;
  o.page_size = 16, o.num_pages = (P + 15) / 16 + 1;
  BatchEngine e(m, o);
  const int first = prompt[0];  // untimed: a 1-token step packs the weights (the server's first request)
  const SeqId warm = *e.open({first}, 1);
  e.step({{warm, &first, 1}}, logits.data());
  e.close(warm);
  const SeqId id = *e.open(prompt, P);
  const double t0 = now();
  for (int t = 0; t < P; t += chunk)
    e.step({{id, prompt.data() + t, std::min(chunk, P - t)}}, logits.data());
  return P / (now() - t0);
}

// GFLOP/s of y[N, O] = x[N, I] · W[O, I]ᵀ (30M preset's up_proj: I 512, O 1536), 50 products:
// the fixed-order kernel (ops/linear_rows.h, W packed beforehand as in the engine) or OpenBLAS
// sgemm.
double linear_gflops(int N, bool rows) {
  const int I = 512, O = 1536, reps = 50;
  std::vector<float> x((size_t)N * I, 0.5f), W((size_t)O * I, 0.25f), y((size_t)N * O);
  const LinearMap map{Weight(W.data()), I, O};
  const PackedWeights panels(std::span<const LinearMap>(&map, 1));  // as the engine: packed once
  const double t0 = now();
  for (int k = 0; k < reps; ++k)
    if (rows) linear_rows(y.data(), x.data(), Weight(W.data()), nullptr, N, I, O, &panels);
    else cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, O, I, 1.0f, x.data(), I, W.data(),
                     I, 0.0f, y.data(), O);
  return 2.0 * N * I * O * reps / (now() - t0) / 1e9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, rounds = 5, K = 32, P = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (a == "--threads") threads = v;
    else if (a == "--rounds") rounds = v;
    else if (a == "--steps") K = v;
    else if (a == "--prompt") P = v;
    else {
      std::fprintf(stderr, "unknown option %s (--threads, --rounds, --steps, --prompt)\n", a.c_str());
      return 1;
    }
  }
  if (threads < 1 || rounds < 1 || K < 1 || P < 1) {
    std::fprintf(stderr, "--threads, --rounds, --steps and --prompt must be >= 1\n");
    return 1;
  }
  set_num_threads(threads);
  const char* names[] = {"llm0-small", "llm0-30m"};
  const std::string files[] = {LLM0_SOURCE_DIR "/configs/llm0-small.json",
                               LLM0_SOURCE_DIR "/configs/llm0-30m.json"};
  const int streams[] = {1, 4, 8, 16};
  std::vector<std::unique_ptr<Model>> models;
  for (const std::string& f : files) {
    models.push_back(std::make_unique<Model>(ModelConfig::from_file(f)));
    init_weights(*models.back(), 1);
  }
  std::map<std::pair<int, int>, std::vector<double>> rate;  // (model, streams; 0 = contiguous)
  struct PrefillCase {
    size_t model;
    int tokens, chunk;
  };
  const PrefillCase prefills[] = {{0, 200, 200}, {1, 200, 200}, {1, 1000, 64}};
  std::map<std::pair<int, int>, std::vector<double>> prefill;  // (case, engine?)
  for (int r = 0; r < rounds; ++r)
    for (size_t mi = 0; mi < models.size(); ++mi) {
      rate[{(int)mi, 0}].push_back(contiguous_rate(*models[mi], P, K));
      for (int s : streams) rate[{(int)mi, s}].push_back(engine_rate(*models[mi], s, P, K));
      for (size_t c = 0; c < std::size(prefills); ++c)
        if (prefills[c].model == mi)
          for (int eng : {0, 1})
            prefill[{(int)c, eng}].push_back(
                prefill_rate(*models[mi], prefills[c].tokens, prefills[c].chunk, eng));
    }
  std::map<std::pair<int, int>, std::vector<double>> gflops;  // (N, linear_rows?)
  for (int r = 0; r < rounds; ++r)
    for (int N : {1, 8, 64})
      for (int rows : {0, 1}) gflops[{N, rows}].push_back(linear_gflops(N, rows));
  std::printf("decode tokens/s, %d thread(s), prompt %d, %d steps, %d rounds interleaved: median "
              "(min-max), ratio to the engine's 1 stream\n\n", threads, P, K, rounds);
  std::printf("| model | params | streams | tokens/s | ratio |\n| --- | --- | --- | --- | --- |\n");
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const double base = median(rate[{(int)mi, 1}]);
    for (int s : {0, 1, 4, 8, 16}) {
      const std::vector<double>& v = rate[{(int)mi, s}];
      std::printf("| %s | %.1fM | %s | %.0f (%.0f-%.0f) | %.2fx |\n", names[mi],
                  models[mi]->num_parameters() / 1e6,
                  s ? std::to_string(s).c_str() : "1 (forward_cached)", median(v),
                  *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()),
                  median(v) / base);
    }
  }
  std::printf("\nprefill, tokens/s: median (min-max)\n\n| model | prompt | engine steps of | "
              "forward_cached (sgemm) | engine (fixed order) | engine / forward_cached |\n"
              "| --- | --- | --- | --- | --- | --- |\n");
  for (size_t c = 0; c < std::size(prefills); ++c) {
    const std::vector<double>& f = prefill[{(int)c, 0}];
    const std::vector<double>& g = prefill[{(int)c, 1}];
    std::printf("| %s | %d | %d | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.2fx |\n",
                names[prefills[c].model], prefills[c].tokens, prefills[c].chunk, median(f),
                *std::min_element(f.begin(), f.end()), *std::max_element(f.begin(), f.end()),
                median(g), *std::min_element(g.begin(), g.end()),
                *std::max_element(g.begin(), g.end()), median(g) / median(f));
  }
  std::printf("\nlinear map [N, 512] x [1536, 512]^T, GFLOP/s: median\n\n| N | sgemm | "
              "linear_rows | ratio |\n| --- | --- | --- | --- |\n");
  for (int N : {1, 8, 64}) {
    const double a = median(gflops[{N, 0}]), b = median(gflops[{N, 1}]);
    std::printf("| %d | %.1f | %.1f | %.2fx |\n", N, a, b, b / a);
  }
  return 0;
}
