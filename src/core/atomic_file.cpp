// AtomicFile: tmp + fsync + rename. See atomic_file.h.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/check.h"

namespace llm0 {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  LLM0_CHECK(!std::filesystem::is_directory(path_), "cannot write '{}': it is a directory", path_);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  LLM0_CHECK(fd_ >= 0, "cannot create '{}' (writing '{}'): {}", tmp_, path_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, size_t n) {
  LLM0_CHECK(fd_ >= 0, "write to '{}' after commit", path_);
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    LLM0_CHECK(w > 0, "error writing '{}': {}", tmp_, w < 0 ? std::strerror(errno) : "no progress");
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  LLM0_CHECK(fd_ >= 0, "'{}' committed twice", path_);
  LLM0_CHECK(::fsync(fd_) == 0, "fsync of '{}' failed: {}", tmp_, std::strerror(errno));
  const int rc = ::close(fd_);
  fd_ = -1;
  LLM0_CHECK(rc == 0, "close of '{}' failed: {}", tmp_, std::strerror(errno));
  LLM0_CHECK(std::rename(tmp_.c_str(), path_.c_str()) == 0, "cannot rename '{}' to '{}': {}", tmp_,
             path_, std::strerror(errno));
  committed_ = true;
  // Make the rename itself durable; failing to open the directory is not an error of the write.
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace llm0
