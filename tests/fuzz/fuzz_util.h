// Helpers shared by the libFuzzer harnesses of tests/fuzz/ (one harness per parser; each defines
// LLVMFuzzerTestOneInput). A harness accepts either an llm0::Error (the documented way every
// parser refuses bad input) or a valid result whose properties it checks with FUZZ_ASSERT;
// anything else (a crash, a sanitizer report, another exception escaping) is a finding.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "core/check.h"

namespace llm0::fuzz {

/// Aborts with the failed property (libFuzzer then saves the input as a crash).
#define FUZZ_ASSERT(cond, what)                                                        \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "fuzz property failed: %s (%s)\n", what, #cond);            \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

/// A per-process scratch file for the readers that take a path: $TMPDIR (or /tmp) /
/// llm0-fuzz-<pid>-<name>. Removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name) {
    const char* dir = std::getenv("TMPDIR");
    path_ = (std::filesystem::path(dir && *dir ? dir : "/tmp") /
             ("llm0-fuzz-" + std::to_string(::getpid()) + "-" + name))
                .string();
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    std::filesystem::remove(path_ + ".tmp", ec);
  }
  /// Replaces the file's contents with `bytes` and returns its path.
  const std::string& write(std::string_view bytes) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// `read()`'s result, or std::nullopt when it refuses the input with llm0::Error (any other
/// exception escapes: a finding).
template <class Read>
auto accepted(Read&& read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// The fuzz input as bytes.
inline std::string_view as_bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Reads fixed-size values off the front of the input (zeros once it runs out), for harnesses
/// whose input is a mix of parameters and payload (sampler, UTF-8 stream chunking).
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  template <class T>
  T take() {
    T v{};
    const size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
    __builtin_memcpy(&v, p_, k);
    p_ += k, n_ -= k;
    return v;
  }
  size_t left() const { return n_; }
  std::string_view rest() const { return {reinterpret_cast<const char*>(p_), n_}; }

 private:
  const uint8_t* p_;
  size_t n_;
};

}  // namespace llm0::fuzz
