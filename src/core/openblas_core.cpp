// OpenBLAS core check at start-up. See openblas_core.h.
#include "core/openblas_core.h"

#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" {
char* openblas_get_corename(void);
char* openblas_get_config(void);
}

namespace llm0 {

namespace {

struct CoreLevel {
  const char* name;
  Isa isa;
};
// OpenBLAS 0.3's x86-64 DYNAMIC_ARCH cores (driver/others/dynamic.c), by widest SIMD level of
// their single-precision kernels; AVX-only cores count as Scalar here (no FMA: below x86-64-v3).
constexpr CoreLevel kCores[] = {
    {"SapphireRapids", Isa::Avx512}, {"Cooperlake", Isa::Avx512}, {"SkylakeX", Isa::Avx512},
    {"Haswell", Isa::Avx2},          {"Zen", Isa::Avx2},          {"Sandybridge", Isa::Scalar},
    {"Excavator", Isa::Scalar},      {"Steamroller", Isa::Scalar}, {"Piledriver", Isa::Scalar},
    {"Bulldozer", Isa::Scalar},      {"Bobcat", Isa::Scalar},     {"Barcelona", Isa::Scalar},
    {"Opteron_SSE3", Isa::Scalar},   {"Opteron", Isa::Scalar},    {"Nehalem", Isa::Scalar},
    {"Dunnington", Isa::Scalar},     {"Penryn", Isa::Scalar},     {"Core2", Isa::Scalar},
    {"Atom", Isa::Scalar},           {"Prescott", Isa::Scalar},   {"Northwood", Isa::Scalar},
    {"Katmai", Isa::Scalar},         {"Coppermine", Isa::Scalar}, {"Banias", Isa::Scalar},
};

bool same_name(const std::string& a, const std::string& b) {
  return strcasecmp(a.c_str(), b.c_str()) == 0;
}

const char* env_or_null(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Rank 0 of an MPI job, or no MPI job: the process that speaks for the job.
bool first_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* r = env_or_null(v)) return std::string(r) == "0";
  return true;
}

// This process's arguments, from /proc/self/cmdline (NUL-separated).
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::string> args;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end - at));
    at = end == std::string::npos ? all.size() : end + 1;
  }
  return args;
}

// Sets OPENBLAS_CORETYPE=core and runs this program again; returns only if that failed.
void reexec_with_core(const std::string& core, const std::string& fallback) {
  std::vector<std::string> args = own_arguments();
  if (args.empty()) return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv("LLM0_OPENBLAS_FALLBACK", fallback.c_str(), 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv.data());
  unsetenv("OPENBLAS_CORETYPE");  // not taken: children must not think it was
  unsetenv("LLM0_OPENBLAS_FALLBACK");
  if (first_rank())
    std::fprintf(stderr, "llm0: OpenBLAS runs its %s kernels, older than this CPU's; selecting %s "
                 "needs a restart, which failed (set OPENBLAS_CORETYPE=%s yourself)\n",
                 fallback.c_str(), core.c_str(), core.c_str());
}

// After the restart: say once per process tree what was done (children inherit the note).
void report_selection(const std::string& fallback, const std::string& wanted) {
  const std::string now = openblas_get_corename();
  if (!env_or_null("LLM0_OPENBLAS_NOTED") && first_rank()) {
    if (same_name(now, wanted))
      std::fprintf(stderr, "llm0: OpenBLAS chose its %s kernels, older than this CPU's %s; "
                   "using its %s kernels (OPENBLAS_CORETYPE=%s; set it yourself to choose)\n",
                   fallback.c_str(), isa_name(widest_isa()), now.c_str(), wanted.c_str());
    else
      std::fprintf(stderr, "llm0: OpenBLAS did not take OPENBLAS_CORETYPE=%s: it runs its %s "
                   "kernels\n", wanted.c_str(), now.c_str());
  }
  setenv("LLM0_OPENBLAS_NOTED", "1", 1);
}

bool g_checked = false;

}  // namespace

std::optional<Isa> openblas_core_isa(const std::string& core) {
  for (const CoreLevel& c : kCores)
    if (same_name(core, c.name)) return c.isa;
  return std::nullopt;
}

std::optional<std::string> better_openblas_core(const std::string& library_core, Isa cpu, bool amd) {
  const std::optional<Isa> have = openblas_core_isa(library_core);
  const Isa want = cpu == Isa::Avx512Bf16 ? Isa::Avx512 : cpu;
  if (!have || *have >= want) return std::nullopt;
  switch (cpu) {
    case Isa::Avx512Bf16: return std::string("Cooperlake");
    case Isa::Avx512: return std::string("SkylakeX");
    case Isa::Avx2: return std::string(amd ? "Zen" : "Haswell");
    case Isa::Scalar: break;
  }
  return std::nullopt;
}

void check_openblas_core_at_startup() {
  if (g_checked) return;
  g_checked = true;
  const char* user = env_or_null("OPENBLAS_CORETYPE");
  const char* fallback = env_or_null("LLM0_OPENBLAS_FALLBACK");
  if (user && fallback) return report_selection(fallback, user);  // the restarted process
  if (user) return;                                               // the user's choice
  const std::string config = openblas_get_config();
  if (config.find("DYNAMIC_ARCH") == std::string::npos) return;  // one core built in: no choice
  const char* test_core = env_or_null("LLM0_OPENBLAS_TEST_CORE");
  const std::string library_core = test_core ? test_core : openblas_get_corename();
#if defined(__x86_64__)
  const bool amd = __builtin_cpu_is("amd");
#else
  const bool amd = false;
#endif
  if (const auto core = better_openblas_core(library_core, widest_isa(), amd))
    reexec_with_core(*core, library_core);
}

OpenBlasCore openblas_core() {
  OpenBlasCore c;
  c.core = openblas_get_corename();
  c.config = openblas_get_config();
  const char* fallback = env_or_null("LLM0_OPENBLAS_FALLBACK");
  c.user_set = env_or_null("OPENBLAS_CORETYPE") && !fallback;
  if (fallback && env_or_null("OPENBLAS_CORETYPE")) c.fallback = fallback;
  return c;
}

std::string openblas_core_line() {
  const OpenBlasCore c = openblas_core();
  std::string version = c.config.substr(0, c.config.find(' ', c.config.find(' ') + 1));
  std::string why = c.user_set ? "OPENBLAS_CORETYPE, set by the user"
                    : !c.fallback.empty() ? "selected by llm0: the library chose " + c.fallback +
                                                ", older than this CPU's " + isa_name(widest_isa())
                                          : "the library's choice";
  return version + " core " + c.core + " (" + why + ")";
}

}  // namespace llm0

// Every program that links the llm0 library runs the check before main() (CMakeLists.txt keeps
// this object in every link with --undefined=llm0_openblas_core_anchor). Shared libraries, the
// BLAS among them, are initialised before the program's own constructors.
extern "C" {
int llm0_openblas_core_anchor = 0;
}
[[gnu::constructor]] static void llm0_openblas_core_startup() {
  llm0::check_openblas_core_at_startup();
}
