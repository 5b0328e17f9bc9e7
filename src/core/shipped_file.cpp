// Looking up a file shipped with llm0 (shipped_file.h).
#include "core/shipped_file.h"

#include <filesystem>
#include <vector>

#include "core/check.h"

namespace llm0 {

namespace fs = std::filesystem;

std::string shipped_file(const std::string& rel) {
  std::vector<fs::path> tried = {fs::path(rel)};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      tried.push_back(dir / rel);
      tried.push_back(dir / "share" / "llm0" / rel);
      if (dir == dir.root_path()) break;
    }
  for (const fs::path& p : tried)
    if (fs::is_regular_file(p, ec)) return p.string();
  LLM0_FAIL("shipped file \"{}\" not found (looked in the current directory and above the "
            "program {})", rel, exe.string());
}

}  // namespace llm0
