// Thousands separators and binary units for byte counts (see kv_format.h).
#include "ledger/kv_format.h"

#include <cstdio>

namespace llm0 {

std::string format_thousands(uint64_t n) {
  std::string digits = std::to_string(n), out;
  const size_t len = digits.size();
  for (size_t i = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  uint64_t scale = 1;
  while (unit < 6 && bytes / scale >= 1024) scale *= 1024, ++unit;
  if (bytes % scale == 0) return std::to_string(bytes / scale) + " " + kUnits[unit];
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / static_cast<double>(scale));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + " " + kUnits[unit];
}

}  // namespace llm0
