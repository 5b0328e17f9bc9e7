// CPU instruction sets and LLM0_KERNEL. See cpu_features.h.
#include "core/cpu_features.h"

#include <cstdlib>
#include <fstream>

#include "core/check.h"

namespace llm0 {

namespace {
constexpr Isa kAll[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16};

// LLM0_KERNEL parsed: nullopt when unset, the level when valid; throws otherwise.
std::optional<Isa> read_forced() {
  const char* env = std::getenv("LLM0_KERNEL");
  if (!env || !*env) return std::nullopt;
  for (Isa isa : kAll)
    if (std::string(env) == isa_name(isa)) {
      LLM0_CHECK(cpu_supports(isa), "LLM0_KERNEL={}: this CPU lacks the instructions (it runs up "
                 "to {})", env, isa_name(widest_isa()));
      return isa;
    }
  LLM0_FAIL("LLM0_KERNEL={} is not a kernel level: use scalar, avx2, avx512 or avx512bf16", env);
}
}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Scalar: return "scalar";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
    case Isa::Avx512Bf16: return "avx512bf16";
  }
  return "?";
}

bool cpu_supports(Isa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();  // the compiler runtime's cpuid reading (it checks the OS saves the registers)
  // x86-64-v3 / v4 by their features (clang 14, the fuzz build's compiler, knows no level names)
  const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                  __builtin_cpu_supports("avx512cd");
  switch (isa) {
    case Isa::Scalar: return true;
    case Isa::Avx2: return v3;
    case Isa::Avx512: return v4;
    case Isa::Avx512Bf16: return v4 && __builtin_cpu_supports("avx512bf16");
  }
  return false;
#else
  return isa == Isa::Scalar;
#endif
}

Isa widest_isa() {
  Isa best = Isa::Scalar;
  for (Isa isa : kAll)
    if (cpu_supports(isa)) best = isa;
  return best;
}

std::optional<Isa> forced_isa() {
  static const std::optional<Isa> forced = read_forced();
  return forced;
}

Isa kernel_isa() { return forced_isa().value_or(widest_isa()); }

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

}  // namespace llm0
