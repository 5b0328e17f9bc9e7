// Zeroed memory for large read-mostly arrays that a kernel streams (BF16 weights, packed weight
// panels): a fresh anonymous mapping aligned to 2 MiB whose whole 2 MiB pages are offered as
// transparent huge pages before the first touch. (aligned_alloc may hand back memory freed a
// moment ago, already faulted in 4 KiB pages: decode then streamed the matrices ~1.5x slower.)
#pragma once
#include <cstddef>
#include <memory>

namespace llm0 {

/// `bytes` zeroed bytes, 2 MiB aligned; unmapped when the last owner lets go. The hint covers the
/// whole 2 MiB pages inside [0, bytes) only, so a small tail does not cost a huge page.
/// Throws llm0::Error when the mapping fails (out of memory), naming `what` and the size.
std::shared_ptr<void> huge_page_buffer(size_t bytes, const char* what);

}  // namespace llm0
