// printf-style formatting for the lessons' tables (column widths and fixed decimals, which the
// "{}" formatter of core/check.h does not do).
#pragma once
#include <cstdio>
#include <string>

namespace llm0::lesson {

/// snprintf into a std::string of whatever length the result needs.
template <class... A>
std::string line(const char* fmt, A... a) {
  const int n = std::snprintf(nullptr, 0, fmt, a...);
  std::string s(n > 0 ? (size_t)n : 0, '\0');
  if (n > 0) std::snprintf(s.data(), s.size() + 1, fmt, a...);
  return s;
}

}  // namespace llm0::lesson
