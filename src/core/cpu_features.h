// The CPU's instruction sets as llm0's run-time dispatched kernels see them, and LLM0_KERNEL, the
// one environment variable that forces every dispatched kernel family to one level (tests run each
// level the CPU supports: scripts/test_kernels.sh). The families: the linear layers' packed
// panels (ops/linear_rows.h: baseline / avx2 / avx512 tiles), the BF16 weight kernels
// (ops/bf16_kernels.h: scalar / avx2 / avx512 / avx512bf16) and the FMA peak loop
// (ledger/fma_peak.h). A build with -march=native compiles every linear_rows tile for this CPU, so
// there the level chooses the tile shape; the portable builds (sanitizer, no -march) also choose
// the instructions.
#pragma once

#include <optional>
#include <string>

namespace llm0 {

/// Instruction-set levels, narrowest first: Scalar (x86-64 baseline, SSE2), Avx2 (AVX2 + FMA,
/// x86-64-v3), Avx512 (AVX-512 F/BW/DQ/VL/CD, x86-64-v4), Avx512Bf16 (Avx512 + AVX512_BF16's
/// vdpbf16ps). The operating system's support (XSAVE state) is part of each check.
enum class Isa { Scalar, Avx2, Avx512, Avx512Bf16 };

/// "scalar", "avx2", "avx512", "avx512bf16" (the values of LLM0_KERNEL).
const char* isa_name(Isa isa);
/// Whether this CPU and OS run level `isa` (Scalar: always; other CPUs than x86-64: Scalar only).
bool cpu_supports(Isa isa);
/// The widest level this CPU runs.
Isa widest_isa();
/// The level LLM0_KERNEL forces (read once per process), or nullopt when it is unset or empty.
/// Throws llm0::Error naming LLM0_KERNEL when it names no level, or one this CPU lacks.
std::optional<Isa> forced_isa();
/// The level the dispatched kernels may use: forced_isa() if set, else widest_isa().
Isa kernel_isa();
/// The CPU's name as the kernel reports it ("AMD EPYC 9R14", "Intel(R) Xeon(R) ..."; /proc/cpuinfo
/// "model name"), "unknown CPU" when unreadable.
std::string cpu_model_name();

}  // namespace llm0
