// The explorer's child process: started from the supervising thread, reaped by it
// (train_process.h).
#include "explore/train_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/check.h"

namespace llm0::explore {

struct ChildSupervisor::Spawn {
  ChildJob job;
  std::string program;
  std::vector<std::string> argv;
  int log_fd = -1, null_fd = -1;
  pid_t pid = -1;
  int error = 0;  // errno of a failed fork
  bool done = false;
};

namespace {

// The program, in the nanny: signals back to their defaults (the server ignores SIGPIPE; the nanny
// blocks everything) and unblocked, then exec — except SIGINT and SIGTERM for `llm0 train` (argv[1]
// "train"), which stay blocked until it has installed its stop handler (tools/cli/cmd_train.cpp
// unblocks them): a stop sent in its first milliseconds waits for it instead of killing it.
[[noreturn]] void exec_program(const std::string& program, const std::vector<char*>& argv) {
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD}) sigaction(sig, &dfl, nullptr);
  sigset_t mask;
  sigemptyset(&mask);
  if (argv.size() > 1 && argv[1] != nullptr && std::strcmp(argv[1], "train") == 0) {
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
  }
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  execv(program.c_str(), argv.data());
  static const char kFailed[] = "llm0 explore: could not run the program of this job\n";
  (void)!write(2, kFailed, sizeof kFailed - 1);
  _exit(127);
}

// The nanny: a single-threaded process between the server and the program, which forwards the
// first stop signal it gets (SIGTERM from the server's stop, or the PR_SET_PDEATHSIG SIGTERM when
// the server dies) to the program as one SIGTERM and ignores the rest, then exits with the
// program's status (128 + N for signal N). One process in between because a dying multithreaded
// parent sends PR_SET_PDEATHSIG once per thread its child is passed to on the way out (the kernel
// reparents within the thread group first), and the trainer takes a second signal as "kill now".
[[noreturn]] void nanny(const std::string& program, const std::vector<char*>& argv, pid_t server) {
  const pid_t child = fork();
  if (child == 0) exec_program(program, argv);
  if (child < 0) _exit(127);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != server) kill(child, SIGTERM);  // the server died before the prctl
  sigset_t stops;
  sigemptyset(&stops);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stops, sig);
  bool forwarded = getppid() != server;
  for (;;) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child)
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    const timespec tick = {0, 50'000'000};  // 50 ms: the program's end is seen within it
    if (sigtimedwait(&stops, nullptr, &tick) > 0 && !forwarded) kill(child, SIGTERM), forwarded = true;
  }
}

// fork of the nanny, which starts `program`. In the children only async-signal-safe calls run
// before exec (the server has many threads; a lock another thread held at the fork stays locked).
pid_t fork_child(const std::string& program, const std::vector<char*>& argv, int log_fd, int null_fd,
                 long max_fd) {
  const pid_t server = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  sigset_t all;  // every signal waits for the nanny's sigtimedwait
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  dup2(null_fd, 0), dup2(log_fd, 1), dup2(log_fd, 2);
  // The server's sockets (its listening one too) must not live on in the run.
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
    for (long fd = 3; fd < max_fd; ++fd) close((int)fd);
  nanny(program, argv, server);
}

}  // namespace

ChildSupervisor::ChildSupervisor() : thread_([this] { supervise(); }) {}

ChildSupervisor::~ChildSupervisor() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    if (pid_ > 0) kill(pid_, SIGTERM);
  }
  cv_.notify_all();
  thread_.join();
}

std::optional<pid_t> ChildSupervisor::start(const ChildJob& job, const std::string& program,
                                            const std::vector<std::string>& argv, const std::string& log,
                                            bool append) {
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  LLM0_CHECK(log_fd >= 0, "cannot open the log file {}: {}", log, std::strerror(errno));
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  Spawn s{job, program, argv, log_fd, null_fd};
  std::unique_lock<std::mutex> lk(mu_);
  if (running_ || request_ != nullptr || stop_) {
    close(log_fd), close(null_fd);
    return std::nullopt;
  }
  running_ = job, request_ = &s;
  cv_.notify_all();
  cv_.wait(lk, [&] { return s.done; });
  close(log_fd), close(null_fd);
  if (s.pid < 0) {
    running_.reset();
    throw Error(format("could not start {}: {}", program, std::strerror(s.error)));
  }
  return s.pid;
}

void ChildSupervisor::supervise() {
  // No process-directed signal lands on this thread (the servers take SIGINT / SIGTERM on their own
  // waiting thread: tools/cli/stop_signals.h); the child unblocks them before exec.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const long max_fd = sysconf(_SC_OPEN_MAX) > 0 ? sysconf(_SC_OPEN_MAX) : 1024;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || request_ != nullptr; });
    if (request_ == nullptr) return;
    Spawn& s = *request_;
    request_ = nullptr;
    std::vector<char*> argv;
    for (std::string& a : s.argv) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork_child(s.program, argv, s.log_fd, s.null_fd, max_fd);
    s.pid = pid, s.error = errno, s.done = true;
    const ChildJob job = s.job;  // s belongs to start(), which returns once woken
    cv_.notify_all();
    if (pid < 0) continue;
    pid_ = pid;
    lk.unlock();
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    lk.lock();
    exit_status_[{job.kind, job.name}] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    running_.reset(), pid_ = -1;
    cv_.notify_all();
  }
}

std::optional<ChildJob> ChildSupervisor::running() const {
  std::lock_guard<std::mutex> lk(mu_);
  return running_;
}

bool ChildSupervisor::signal(const ChildJob& job, int sig) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!running_ || !(*running_ == job) || pid_ <= 0) return false;
  return kill(pid_, sig) == 0;
}

std::optional<int> ChildSupervisor::exit_status(const ChildJob& job) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (running_ && *running_ == job) return std::nullopt;
  const auto it = exit_status_.find({job.kind, job.name});
  if (it == exit_status_.end()) return std::nullopt;
  return it->second;
}

void ChildSupervisor::wait_idle() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return !running_ && request_ == nullptr; });
}

}  // namespace llm0::explore
