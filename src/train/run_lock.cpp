// RUN/train.lock. See run_lock.h.
#include "train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/check.h"

namespace llm0 {

namespace {
// The pid written in an open lock file (0 if empty or unreadable).
int read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::atoi(buf) : 0;
}

std::string locked_message(const std::string& run_dir, int pid) {
  return pid > 0 ? format("another llm0 train (pid {}) is writing {}", pid, run_dir)
                 : format("another llm0 train is writing {}", run_dir);
}

// Whether a process holds RUN/train.lock, and the pid it wrote (0 if unreadable: the instant
// between its flock and its write).
struct Holder {
  bool held = false;
  int pid = 0;
};

Holder probe(const std::string& run_dir) {
  Holder h;
  const int fd = open(run_lock_path(run_dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return h;
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) flock(fd, LOCK_UN);  // free: nobody trains
  else if (errno == EWOULDBLOCK) h = {true, read_pid(fd)};
  close(fd);
  return h;
}
}  // namespace

std::string run_lock_path(const std::string& run_dir) { return run_dir + "/train.lock"; }

bool run_in_progress(const std::string& run_dir) { return probe(run_dir).held; }

int run_lock_pid(const std::string& run_dir) { return probe(run_dir).pid; }

void check_run_not_locked(const std::string& run_dir) {
  const Holder h = probe(run_dir);
  LLM0_CHECK(!h.held, "{}", locked_message(run_dir, h.pid));
}

RunLock::RunLock(const std::string& run_dir) {
  const std::string path = run_lock_path(run_dir);
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  LLM0_CHECK(fd_ >= 0, "cannot open {}: {}", path, std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int pid = read_pid(fd_);
    close(fd_);
    fd_ = -1;
    throw Error(locked_message(run_dir, pid));
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  const bool ok = ftruncate(fd_, 0) == 0 && pwrite(fd_, pid.data(), pid.size(), 0) == (ssize_t)pid.size();
  if (!ok) {
    const int err = errno;
    close(fd_);
    fd_ = -1;
    throw Error(format("cannot write {}: {}", path, std::strerror(err)));
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  const int cleared = ftruncate(fd_, 0);  // the pid first: a free lock's file names nobody
  (void)cleared;  // nothing to do about a failure here: the close below frees the lock anyway
  close(fd_);  // releases the lock
}

}  // namespace llm0
