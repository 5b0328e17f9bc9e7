// Files shipped with llm0 (data/teaching-world.json, configs/lesson-tiny.json, configs/reference/):
// looked up in the current directory, then next to the running program and in its parent
// directories (each also under share/llm0/), so a build tree and an installed copy both find them.
#pragma once
#include <string>

namespace llm0 {

/// The path of the shipped file `rel` (e.g. "data/teaching-world.json"): the first of
/// ./rel, DIR/rel, DIR/share/llm0/rel for DIR = the program's folder and each folder above it.
/// Throws llm0::Error naming `rel` when none exists.
std::string shipped_file(const std::string& rel);

}  // namespace llm0
