// 2 MiB aligned anonymous mappings with a transparent-huge-page hint. See huge_pages.h.
#include "core/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

#include "core/check.h"

namespace llm0 {

std::shared_ptr<void> huge_page_buffer(size_t bytes, const char* what) {
  constexpr size_t kHuge = (size_t)2 << 20;
  const size_t mapped = bytes + kHuge;
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  LLM0_CHECK(base != MAP_FAILED, "out of memory allocating {} bytes for {}", mapped, what);
  void* p = reinterpret_cast<void*>(((uintptr_t)base + kHuge - 1) / kHuge * kHuge);
#ifdef MADV_HUGEPAGE
  if (bytes >= kHuge) madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  return std::shared_ptr<void>(p, [base, mapped](void*) { munmap(base, mapped); });
}

}  // namespace llm0
