// Human formatting of byte counts for the ledger commands: thousands separators ("131,072") and
// binary units ("128 KiB", "2.81 MiB"; 1 KiB = 1024 B).
#pragma once
#include <cstdint>
#include <string>

namespace llm0 {

/// `n` with a comma every three digits: 1073741824 -> "1,073,741,824".
std::string format_thousands(uint64_t n);

/// `bytes` in the largest binary unit (B, KiB, MiB, GiB, TiB, PiB, EiB) that keeps the value
/// >= 1, with at most two decimals and no trailing zeros: 393216 -> "384 KiB",
/// 2949120 -> "2.81 MiB", 512 -> "512 B".
std::string format_bytes(uint64_t bytes);

}  // namespace llm0
