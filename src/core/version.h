// What `llm0 --version` prints, in the library so the explorer's info endpoint can report it.
#pragma once
#include <string>

namespace llm0 {

/// The build (compiler, -march target), this CPU and the kernel level llm0 dispatches to,
/// OpenBLAS's version and core, and the thread count: several lines, each ending in '\n'.
std::string version_text();

}  // namespace llm0
