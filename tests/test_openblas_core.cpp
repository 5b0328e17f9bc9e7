// OpenBLAS core selection (core/openblas_core.h) and LLM0_KERNEL (core/cpu_features.h): the
// table of cores, the choice for each CPU level, and end to end through `llm0 --version` — a
// library that fell back to Prescott (LLM0_OPENBLAS_TEST_CORE stands in for a CPU newer than the
// library's table) is replaced by the matching core after one restart, with one line saying so;
// a user's OPENBLAS_CORETYPE is kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "core/check.h"
#include "core/cpu_features.h"
#include "core/openblas_core.h"

namespace llm0 {
namespace {

using testing_fixtures::run_cli;

TEST(OpenBlasCore, CoreNamesMapToTheirWidestLevel) {
  EXPECT_EQ(openblas_core_isa("Prescott"), Isa::Scalar);
  EXPECT_EQ(openblas_core_isa("Sandybridge"), Isa::Scalar);  // AVX without FMA: below v3
  EXPECT_EQ(openblas_core_isa("Haswell"), Isa::Avx2);
  EXPECT_EQ(openblas_core_isa("Zen"), Isa::Avx2);
  EXPECT_EQ(openblas_core_isa("SKYLAKEX"), Isa::Avx512);  // case-insensitive, as OpenBLAS reads it
  EXPECT_EQ(openblas_core_isa("Cooperlake"), Isa::Avx512);
  EXPECT_EQ(openblas_core_isa("SapphireRapids"), Isa::Avx512);
  EXPECT_EQ(openblas_core_isa("NeoverseN1"), std::nullopt);  // unknown here: left alone
}

TEST(OpenBlasCore, AnOlderCoreIsReplacedByTheCpusOwn) {
  // The machine: Emerald Rapids (AVX-512 + BF16), the library on Prescott.
  EXPECT_EQ(better_openblas_core("Prescott", Isa::Avx512Bf16, false), "Cooperlake");
  EXPECT_EQ(better_openblas_core("Prescott", Isa::Avx512, false), "SkylakeX");
  EXPECT_EQ(better_openblas_core("Haswell", Isa::Avx512, false), "SkylakeX");
  EXPECT_EQ(better_openblas_core("Nehalem", Isa::Avx2, false), "Haswell");
  EXPECT_EQ(better_openblas_core("Sandybridge", Isa::Avx2, true), "Zen");
  // A core as wide as the CPU stays (SkylakeX on a BF16 CPU: the float32 kernels are the same).
  EXPECT_EQ(better_openblas_core("SkylakeX", Isa::Avx512Bf16, false), std::nullopt);
  EXPECT_EQ(better_openblas_core("Zen", Isa::Avx2, true), std::nullopt);
  EXPECT_EQ(better_openblas_core("Cooperlake", Isa::Avx512Bf16, false), std::nullopt);
  // Nothing wider to take, or a name the table does not know.
  EXPECT_EQ(better_openblas_core("Prescott", Isa::Scalar, false), std::nullopt);
  EXPECT_EQ(better_openblas_core("SomeFutureCore", Isa::Avx512, false), std::nullopt);
}

// The environment of the child: none of the variables a parent test run may carry.
const std::string kClean = "env -u OPENBLAS_CORETYPE -u LLM0_OPENBLAS_FALLBACK -u LLM0_OPENBLAS_NOTED "
                           "-u LLM0_OPENBLAS_TEST_CORE -u LLM0_KERNEL";

TEST(OpenBlasCore, AFallbackCoreIsReplacedAtStartUpAndSaidOnce) {
  if (widest_isa() == Isa::Scalar) GTEST_SKIP() << "no wider core than Prescott for this CPU";
  const std::string want =
      *better_openblas_core("Prescott", widest_isa(), __builtin_cpu_is("amd"));
  const auto err = std::filesystem::temp_directory_path() / "llm0_openblas_core.err";
  const auto r = run_cli("--version", err, kClean + " LLM0_OPENBLAS_TEST_CORE=Prescott");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("BLAS: OpenBLAS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" core " + want + " (selected by llm0: the library chose Prescott"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.err, "llm0: OpenBLAS chose its Prescott kernels, older than this CPU's " +
                       std::string(isa_name(widest_isa())) + "; using its " + want +
                       " kernels (OPENBLAS_CORETYPE=" + want + "; set it yourself to choose)\n");
}

TEST(OpenBlasCore, TheUsersCoreIsKept) {
  const auto err = std::filesystem::temp_directory_path() / "llm0_openblas_user.err";
  const auto r = run_cli("--version", err, kClean + " OPENBLAS_CORETYPE=Prescott LLM0_OPENBLAS_TEST_CORE=Prescott");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find(" core Prescott (OPENBLAS_CORETYPE, set by the user)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(OpenBlasCore, TheLibrarysOwnChoiceIsSaid) {
  const auto err = std::filesystem::temp_directory_path() / "llm0_openblas_own.err";
  const auto r = run_cli("--version", err, kClean);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string core = openblas_core().core;  // this test process's own (no env of ours)
  if (!openblas_core().user_set && openblas_core().fallback.empty()) {
    EXPECT_NE(r.out.find(" core " + core + " (the library's choice)"), std::string::npos) << r.out;
  }
}

TEST(CpuFeatures, LevelsAreNestedAndNamed) {
  EXPECT_TRUE(cpu_supports(Isa::Scalar));
  for (Isa wide : {Isa::Avx512Bf16, Isa::Avx512, Isa::Avx2}) {
    if (!cpu_supports(wide)) continue;
    for (Isa narrow = Isa::Scalar; narrow < wide; narrow = Isa((int)narrow + 1))
      EXPECT_TRUE(cpu_supports(narrow)) << isa_name(narrow) << " under " << isa_name(wide);
  }
  EXPECT_TRUE(cpu_supports(widest_isa()));
  EXPECT_STREQ(isa_name(Isa::Avx512Bf16), "avx512bf16");
}

TEST(CpuFeatures, Llm0KernelIsCheckedByName) {
  const auto err = std::filesystem::temp_directory_path() / "llm0_kernel_env.err";
  auto r = run_cli("--version", err, kClean + " LLM0_KERNEL=avx3");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "llm0: error: LLM0_KERNEL=avx3 is not a kernel level: use scalar, avx2, avx512 "
                   "or avx512bf16\n");
  r = run_cli("--version", err, kClean + " LLM0_KERNEL=scalar");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("kernels: scalar (LLM0_KERNEL)"), std::string::npos) << r.out;
  for (Isa isa : {Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16}) {
    if (cpu_supports(isa)) continue;
    r = run_cli("--version", err, kClean + " LLM0_KERNEL=" + isa_name(isa));
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find(std::string("LLM0_KERNEL=") + isa_name(isa) + ": this CPU lacks"),
              std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace llm0
