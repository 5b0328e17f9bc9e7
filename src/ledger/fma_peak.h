// The CPU's arithmetic peak, measured: register-only loops of independent multiply-adds (no
// memory traffic), so the rate is the core's issue rate times the vector width — the ceiling no
// kernel can pass. Model FLOPs utilisation (MFU) is reported against it as well as against sgemm
// (ledger/sgemm_peak.h): sgemm alone hides a slow BLAS (OpenBLAS running generic SSE kernels on a
// CPU it does not know reached "MFU 94%" of its own slow sgemm).
#pragma once

#include "core/cpu_features.h"

namespace llm0 {

/// float32 multiply-add GFLOP/s of `threads` threads (each its own loop; 0 = all cores) at level
/// `isa`: Avx512 and Avx512Bf16 run 16-lane FMAs (zmm), Avx2 8-lane FMAs (ymm), Scalar 4-lane SSE
/// multiplies and adds (x86-64 baseline; plain float code elsewhere). 2 FLOPs per lane per FMA.
/// Best of 3 runs of ≥ 20 ms each. Throws llm0::Error if this CPU lacks `isa`.
double measure_fma_gflops(Isa isa, int threads);

/// The same at the level the kernels use (kernel_isa(): LLM0_KERNEL, else the widest).
double measure_fma_gflops(int threads);

/// BF16 dot-product GFLOP/s of `threads` threads: vdpbf16ps on zmm (AVX512_BF16), 32 bf16
/// products accumulated into 16 float32 lanes per instruction = 64 FLOPs. Best of 3 runs of
/// ≥ 20 ms. Throws llm0::Error naming AVX512_BF16 when this CPU lacks it.
double measure_bf16_dot_gflops(int threads);

/// Whether the CPU reports AMX-BF16 tiles (cpuid); llm0 has no AMX kernel, so no rate is measured.
bool cpu_has_amx_bf16();

}  // namespace llm0
