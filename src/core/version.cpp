// `llm0 --version`: the build and what this machine runs — compiler and target instruction set,
// the CPU and the level of llm0's dispatched kernels (LLM0_KERNEL), OpenBLAS's version and kernel
// core (and whether llm0 selected it: core/openblas_core.h), threads.
#include "core/version.h"

#include "core/cpu_features.h"
#include "core/openblas_core.h"
#include "core/threads.h"

namespace llm0 {

namespace {
// The widest instruction set the compiler was allowed (-march), named as LLM0_KERNEL's levels.
const char* build_target() {
#if defined(__AVX512BF16__)
  return "avx512bf16";
#elif defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__)
  return "avx2";
#else
  return "x86-64 baseline (portable; kernels chosen at run time)";
#endif
}
}  // namespace

std::string version_text() {
  const std::optional<Isa> forced = forced_isa();
  std::string s = "llm0 (built with g++ " __VERSION__ " for ";
  s += build_target();
  s += ")\nCPU: " + cpu_model_name() + " | widest level " + isa_name(widest_isa()) +
       " | kernels: " + isa_name(kernel_isa()) +
       (forced ? " (LLM0_KERNEL)" : " (the widest; LLM0_KERNEL forces another)") +
       "\nBLAS: " + openblas_core_line() + "\nthreads: " + std::to_string(num_threads()) + "\n";
  return s;
}

}  // namespace llm0
