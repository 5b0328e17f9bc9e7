// OpenBLAS's kernel core, checked against the CPU before any product runs. Debian's OpenBLAS is a
// DYNAMIC_ARCH build that picks its kernels ("core") from a table of CPU models; a CPU newer than
// its table (0.3.21 on Intel Emerald Rapids, family 6 model 207) gets the generic Prescott (SSE3)
// kernels, ~4x slower than the matching AVX-512 ones. OPENBLAS_CORETYPE names the core, but the
// library reads it once, when it is loaded, before main(). So at start-up (a static initializer of
// every llm0 program that links ops/matmul: the CLI, tests, benchmarks, each MPI rank) llm0
// compares the core with the CPU's instruction sets and, when the library fell back to an older
// core and the user did not set OPENBLAS_CORETYPE, sets it to the matching core and re-executes
// the program (/proc/self/exe, same arguments and environment), printing one line on stderr.
// A user's own OPENBLAS_CORETYPE is always respected.
#pragma once

#include <optional>
#include <string>

#include "core/cpu_features.h"

namespace llm0 {

/// The widest instruction-set level of an OpenBLAS 0.3 core name (the names of
/// openblas_get_corename(), case-insensitive): AVX-512 for SkylakeX, Cooperlake, SapphireRapids;
/// AVX2 for Haswell, Zen; Scalar for the SSE and AVX-only cores (Prescott, Core2, Penryn,
/// Dunnington, Nehalem, Atom, Sandybridge, Barcelona, Bobcat, Bulldozer, Piledriver, Steamroller,
/// Excavator, ...). nullopt for a name this table does not know (nothing is then changed).
std::optional<Isa> openblas_core_isa(const std::string& core);

/// The core llm0 selects, or nullopt to keep the library's: when `library_core` is known and
/// narrower than `cpu` — Cooperlake for AVX-512 with BF16, SkylakeX for AVX-512, Zen (AMD) or
/// Haswell (others) for AVX2; nothing for a Scalar-only CPU. `amd`: the CPU's vendor is AMD.
std::optional<std::string> better_openblas_core(const std::string& library_core, Isa cpu, bool amd);

/// What happened at start-up, for the lines that show it (llm0 --version, bench, train).
struct OpenBlasCore {
  std::string core;      // the core in use now (openblas_get_corename())
  std::string config;    // openblas_get_config(): version and build options
  std::string fallback;  // the core the library chose by itself, when llm0 replaced it; else ""
  bool user_set = false; // OPENBLAS_CORETYPE came from the user's environment
};
/// The state above (read after the start-up check).
OpenBlasCore openblas_core();
/// One line for people: "OpenBLAS 0.3.21 core Cooperlake (selected by llm0: the library chose
/// Prescott, older than this CPU's avx512bf16)" or "... core Cooperlake (the library's choice)".
std::string openblas_core_line();

/// The start-up check described at the top of this file; runs once per process (later calls do
/// nothing). Never throws: when the re-execution fails it prints why and goes on with the
/// library's core. Environment: OPENBLAS_CORETYPE (the user's choice, kept),
/// LLM0_OPENBLAS_FALLBACK (set by llm0 for the re-executed process and its children: the core it
/// replaced), LLM0_OPENBLAS_TEST_CORE (tests only: take this name as the library's own choice, to
/// exercise the selection on a CPU the library knows).
void check_openblas_core_at_startup();

}  // namespace llm0
