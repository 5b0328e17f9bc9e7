// The message of the llm0::Error a call throws, and a substring test to check what it names:
// shared by the corpus tests (test_corpus.cpp, test_corpus_poetry.cpp) and test_json_depth.cpp.
#pragma once
#include <string>

#include "core/check.h"

namespace llm0::testing_fixtures {

/// The what() of the llm0::Error `f()` throws, or "(no llm0::Error thrown)" when it returns
/// (any other exception passes through).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no llm0::Error thrown)";
}

/// Whether `part` occurs in `s`.
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace llm0::testing_fixtures
