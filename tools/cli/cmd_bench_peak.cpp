// `llm0 bench peak [--threads-list 1,2] [--sgemm-n 2048] [--json]`: the machine's arithmetic
// ceilings per thread count — the float32 FMA peak at each instruction-set level the CPU runs
// (ledger/fma_peak.h), the BF16 dot-product peak (AVX512_BF16 vdpbf16ps) where the CPU has it, and
// OpenBLAS's sgemm (ledger/sgemm_peak.h) with its fraction of the FMA peak at the kernels' level.
// The figures training's MFU and the BF16 choice are measured against. AMX-BF16 is named when the
// CPU reports it; llm0 has no AMX kernel, so no AMX rate is measured.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.h"
#include "core/cpu_features.h"
#include "core/openblas_core.h"
#include "core/threads.h"
#include "ledger/fma_peak.h"
#include "ledger/sgemm_peak.h"

namespace llm0::cli {

namespace {

struct PeakArgs {
  std::vector<int> threads;
  int sgemm_n = 2048;
  bool json = false;
};

void run_bench_peak(const PeakArgs& a) {
  std::vector<int> counts = a.threads;
  if (counts.empty())
    for (int t = 1; t <= num_threads(); t *= 2) counts.push_back(t);
  nlohmann::json j = {{"bench", "peak"}, {"cpu", cpu_model_name()},
                      {"kernel_isa", isa_name(kernel_isa())}, {"openblas", openblas_core_line()},
                      {"amx_bf16", cpu_has_amx_bf16() ? "reported by the CPU, not measured (no AMX kernel)"
                                                      : "not on this CPU"}};
  for (int t : counts) {
    set_num_threads(t);
    nlohmann::json row = {{"threads", t}};
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512})
      if (cpu_supports(isa)) row[std::string("fma_gflops_") + isa_name(isa)] = measure_fma_gflops(isa, t);
    const double fma = measure_fma_gflops(kernel_isa(), t);
    row["fma_gflops"] = fma;
    if (cpu_supports(Isa::Avx512Bf16)) {
      row["bf16_dot_gflops"] = measure_bf16_dot_gflops(t);
      row["bf16_dot_vs_fma"] = row["bf16_dot_gflops"].get<double>() / fma;
    }
    const double sgemm = measure_sgemm_gflops(a.sgemm_n, 3);
    row["sgemm_gflops"] = sgemm;
    row["sgemm_vs_fma"] = sgemm / fma;
    j["rows"].push_back(row);
  }
  if (a.json) {
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s | kernels: %s | %s | AMX-BF16: %s\n", j["cpu"].get<std::string>().c_str(),
              j["kernel_isa"].get<std::string>().c_str(), j["openblas"].get<std::string>().c_str(),
              j["amx_bf16"].get<std::string>().c_str());
  std::printf("%7s %12s %12s %12s %12s %12s %12s %9s\n", "threads", "FMA scalar", "FMA avx2",
              "FMA avx512", "BF16 dot", "BF16/FMA", "sgemm", "sgemm/FMA");
  auto cell = [](const nlohmann::json& r, const char* k, const char* fmt) {
    char b[32] = "-";
    if (r.contains(k)) std::snprintf(b, sizeof b, fmt, r[k].get<double>());
    return std::string(b);
  };
  for (const auto& r : j["rows"])
    std::printf("%7d %12s %12s %12s %12s %12s %12s %9s\n", r["threads"].get<int>(),
                cell(r, "fma_gflops_scalar", "%.1f").c_str(), cell(r, "fma_gflops_avx2", "%.1f").c_str(),
                cell(r, "fma_gflops_avx512", "%.1f").c_str(), cell(r, "bf16_dot_gflops", "%.1f").c_str(),
                cell(r, "bf16_dot_vs_fma", "%.2fx").c_str(), cell(r, "sgemm_gflops", "%.1f").c_str(),
                cell(r, "sgemm_vs_fma", "%.2f").c_str());
  std::printf("(GFLOP/s; FMA = float32 multiply-add peak, register-only loops; sgemm/FMA against the "
              "kernels' level)\n");
}

}  // namespace

void register_bench_peak(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("peak", "The machine's ceilings per thread count: float32 FMA "
                                   "peak, BF16 dot-product peak, sgemm");
  static PeakArgs p;
  add_positive_list_option(cmd, "--threads-list", p.threads, "Thread counts to measure (default 1, 2, 4, ... up to --threads)");
  cmd->add_option("--sgemm-n", p.sgemm_n, "Size of the square sgemm")->check(positive_check());
  cmd->add_flag("--json", p.json, "One JSON object on stdout");
  add_threads_option(cmd);
  cmd->callback([] { run_bench_peak(p); });
}

}  // namespace llm0::cli
