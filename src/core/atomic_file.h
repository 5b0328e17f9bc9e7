// AtomicFile: write a file so that readers see either the old file or the complete new one.
// Bytes go to path + ".tmp"; commit() fsyncs it, renames it over path and fsyncs the directory.
// If commit() is never reached (an exception), the destructor removes the .tmp file, so a
// half-written `path` never exists. POSIX only (open/write/fsync/rename).
#pragma once
#include <cstddef>
#include <string>

namespace llm0 {

/// A file written under path + ".tmp" and published at path by commit().
class AtomicFile {
 public:
  /// Creates (truncates) path + ".tmp". Throws llm0::Error naming the path if it cannot, or if
  /// `path` is an existing directory.
  explicit AtomicFile(std::string path);
  /// Removes the .tmp file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends n bytes. Throws llm0::Error (disk full, I/O error) naming the path.
  void write(const void* data, size_t n);
  /// fsync, close, rename to the final path, fsync the directory. Throws llm0::Error on failure.
  void commit();

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace llm0
