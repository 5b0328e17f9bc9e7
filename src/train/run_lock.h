// RUN/train.lock: one `llm0 train` writes a run directory at a time. Rank 0 of a training run
// holds an flock(2) LOCK_EX on the file (which holds its pid) for as long as it trains; the kernel
// releases it when the process ends however it ends, so a stale file is never mistaken for a
// running trainer. Other processes (a second trainer, the explorer server) probe it without
// waiting. flock locks belong to an open file description, so a probe from the holding process
// itself sees the lock too.
#pragma once
#include <string>

namespace llm0 {

/// The lock file of a run directory: RUN/train.lock.
std::string run_lock_path(const std::string& run_dir);

/// Whether a process holds RUN/train.lock (a trainer is writing RUN). False when the directory or
/// the file does not exist. Never blocks, never creates anything.
bool run_in_progress(const std::string& run_dir);

/// The pid of the trainer holding RUN/train.lock, or 0 when none holds it (or the pid it wrote
/// cannot be read yet).
int run_lock_pid(const std::string& run_dir);

/// Throws llm0::Error "another llm0 train (pid N) is writing RUN" when a trainer holds RUN's
/// lock; writes nothing.
void check_run_not_locked(const std::string& run_dir);

/// The lock held by this process: acquired at construction (RUN must exist; train.lock is created
/// if missing and this process's pid written into it), released at destruction (the pid cleared).
class RunLock {
 public:
  /// Throws llm0::Error "another llm0 train (pid N) is writing RUN" when another holder has it, or
  /// naming the file when it cannot be opened.
  explicit RunLock(const std::string& run_dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace llm0
