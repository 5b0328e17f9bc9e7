// Errors: llm0::Error and the LLM0_CHECK macro used at every load, config and shape boundary.
// LLM0_CHECK is always on (also in Release); it throws llm0::Error carrying a message formatted
// with "{}" placeholders, which speaks to the user, and apart from it the file:line of the check,
// which the CLI prints only under LLM0_DEBUG=1 or in a debug build. Only the CLI catches, prints
// and exits 1.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace llm0 {

/// `text` with its control characters other than newline and tab written as \xNN: messages quote
/// bytes read from files, where a NUL would end what() early and an escape sequence would drive
/// the terminal.
inline std::string escape_control(const std::string& text) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

/// The one exception type of the library. what() = the message (no source location), its
/// control characters escaped (escape_control); where() = "file:line" of the check that threw
/// ("" if not given).
struct Error : std::runtime_error {
  explicit Error(const std::string& message, std::string where = {})
      : std::runtime_error(escape_control(message)), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

namespace detail {
inline void format_to(std::ostringstream& os, std::string_view fmt) { os << fmt; }
template <class A, class... Rest>
void format_to(std::ostringstream& os, std::string_view fmt, const A& a, const Rest&... rest) {
  const size_t at = fmt.find("{}");
  if (at == std::string_view::npos) { os << fmt; return; }
  os << fmt.substr(0, at) << a;
  format_to(os, fmt.substr(at + 2), rest...);
}
}  // namespace detail

/// Minimal "{}" formatter (g++ 12 has no std::format): format("a={} b={}", 1, 2) == "a=1 b=2".
template <class... Args>
std::string format(std::string_view fmt, const Args&... args) {
  std::ostringstream os;
  detail::format_to(os, fmt, args...);
  return os.str();
}

}  // namespace llm0

#define LLM0_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond))                                                                           \
      throw ::llm0::Error(::llm0::format(__VA_ARGS__),                                     \
                          ::llm0::format("{}:{}", __FILE__, __LINE__));                    \
  } while (0)

// Unconditional throw (the compiler knows control does not continue).
#define LLM0_FAIL(...)                                                                     \
  throw ::llm0::Error(::llm0::format(__VA_ARGS__), ::llm0::format("{}:{}", __FILE__, __LINE__))

#ifdef NDEBUG
#define LLM0_DCHECK(cond, ...) ((void)0)
#else
#define LLM0_DCHECK(cond, ...) LLM0_CHECK(cond, __VA_ARGS__)
#endif
