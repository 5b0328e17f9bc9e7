// Shared test helpers: seeded random fills, float <-> double copies, an element-wise closeness
// check that reports the first mismatch with its coordinates (STYLE.md §5 pass rule:
// |a - b| <= atol + rtol·|b|, plus max abs, max rel and nmse), and central finite differences.
#pragma once
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::test {

/// n floats uniform in [lo, hi) from rng (seed the rng per test so failures reproduce).
inline std::vector<float> rand_vec(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// Element-wise float -> double copy.
inline std::vector<double> to_double(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Element-wise double -> float copy (rounds).
inline std::vector<float> to_float(const std::vector<double>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = (float)v[i];
  return f;
}

/// Σ a_i b_i in double.
inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

/// "[i0, i1, ...]" coordinates of flat index i in a row-major shape (outermost first);
/// "[i]" when shape is empty.
inline std::string coords(size_t i, const std::vector<int>& shape) {
  if (shape.empty()) return "[" + std::to_string(i) + "]";
  std::vector<size_t> c(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = i % (size_t)shape[k];
    i /= (size_t)shape[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < c.size(); ++k) s += (k ? ", " : "") + std::to_string(c[k]);
  return s + "]";
}

/// Passes when |got_i - want_i| <= atol + rtol·|want_i| for all i (NaN never passes). On failure
/// the message names the first mismatch (flat index and coordinates), the number of mismatches,
/// max abs, max rel and nmse.
template <class A, class B>
::testing::AssertionResult all_close(const A* got, const B* want, size_t n, double rtol,
                                     double atol, const std::string& name,
                                     const std::vector<int>& shape = {}) {
  size_t bad = 0, first = 0;
  double max_abs = 0, max_rel = 0, err2 = 0, ref2 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = (double)got[i], b = (double)want[i], diff = std::fabs(a - b);
    if (!(diff <= atol + rtol * std::fabs(b))) {
      if (bad++ == 0) first = i;
    }
    if (!std::isnan(diff)) {
      max_abs = std::max(max_abs, diff);
      max_rel = std::max(max_rel, diff / std::max(std::fabs(b), 1e-300));
    }
    err2 += diff * diff;
    ref2 += b * b;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os.precision(9);
  os << name << ": " << bad << " of " << n << " elements differ; first at index " << first << " "
     << coords(first, shape) << ": got " << (double)got[first] << ", want " << (double)want[first]
     << " (rtol " << rtol << ", atol " << atol << "); max abs " << max_abs << ", max rel "
     << max_rel << ", nmse " << (ref2 > 0 ? err2 / ref2 : err2);
  return ::testing::AssertionFailure() << os.str();
}

/// Vector form of all_close (sizes must match).
template <class A, class B>
::testing::AssertionResult all_close(const std::vector<A>& got, const std::vector<B>& want,
                                     double rtol, double atol, const std::string& name,
                                     const std::vector<int>& shape = {}) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << name << ": size " << got.size() << " != expected " << want.size();
  return all_close(got.data(), want.data(), got.size(), rtol, atol, name, shape);
}

/// EXPECT_TRUE(all_close(...)) for vectors.
template <class A, class B>
void expect_close(const std::vector<A>& got, const std::vector<B>& want, double rtol, double atol,
                  const std::string& name, const std::vector<int>& shape = {}) {
  EXPECT_TRUE(all_close(got, want, rtol, atol, name, shape));
}

/// Central finite differences in double: g_i = (L(x + h e_i) - L(x - h e_i)) / 2h. `loss` reads
/// x (perturbed in place and restored) and returns the scalar loss.
template <class F>
std::vector<double> fd_grad(std::vector<double>& x, F&& loss, double h = 1e-5) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double lp = loss();
    x[i] = x0 - h;
    const double lm = loss();
    x[i] = x0;
    g[i] = (lp - lm) / (2 * h);
  }
  return g;
}

/// Upstream gradient r for loss = <r, y>: uniform in [-0.5, 1.5), so its mean is non-zero
/// (a zero-mean r hides bugs that drop a constant term).
inline std::vector<float> upstream(size_t n, std::mt19937& rng) {
  return rand_vec(n, rng, -0.5f, 1.5f);
}

/// The paths fresh_temp_path handed out in this test program, removed when it exits (the suite
/// runs many times in CI: checkpoints and GGUF exports left behind filled the disk). Set
/// LLM0_KEEP_TEST_FILES=1 to keep them for a look after a failure.
struct TempPaths {
  std::vector<std::string> paths;
  ~TempPaths() {
    if (const char* keep = std::getenv("LLM0_KEEP_TEST_FILES"); keep && *keep && *keep != '0') return;
    std::error_code ec;  // best effort: a path a test already removed is fine
    for (const auto& p : paths) std::filesystem::remove_all(p, ec);
  }
};
inline TempPaths& temp_paths() {
  static TempPaths t;
  return t;
}

/// A fresh path under the test temp directory, "<TempDir>llm0_<suite>_<pid>_<name>", with
/// anything already there removed (one per process, so parallel ctest runs never collide), and
/// removed again when the test program exits.
inline std::string fresh_temp_path(const std::string& suite, const std::string& name) {
  const std::string p = ::testing::TempDir() + "llm0_" + suite + "_" + std::to_string(::getpid()) +
                        "_" + name;
  std::filesystem::remove_all(p);
  temp_paths().paths.push_back(p);
  return p;
}

/// The training loss of each step of a run's metrics.jsonl (records with "loss"), by step.
inline std::map<int, double> step_losses(const std::string& run) {
  std::map<int, double> m;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) m[j["step"].get<int>()] = j["loss"].get<double>();
  }
  return m;
}

/// Gradient tolerances for fast float backward vs double finite differences.
inline constexpr double kGradRtol = 1e-3, kGradAtol = 1e-4;

}  // namespace llm0::test
