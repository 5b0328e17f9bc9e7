// A command of the `llm0` program (LLM0_CLI) run in the background for a test that signals it or
// watches its files while it runs; stdout and stderr go to a log file. ServerProcess
// (server_process.h) builds on it for the servers.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace llm0::testing_fixtures {

/// `llm0 ARGS...` started at construction; SIGKILLed at destruction if still running.
class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> args, std::filesystem::path log) : log_(std::move(log)) {
    args.insert(args.begin(), LLM0_CLI);
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1), dup2(fd, 2);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(LLM0_CLI, argv.data());
      _exit(127);
    }
  }
  ~ChildProcess() {
    if (running()) kill(pid_, SIGKILL), waitpid(pid_, nullptr, 0);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  pid_t pid() const { return pid_; }
  /// What it printed so far (stdout and stderr).
  std::string log() const { return read_file(log_); }
  /// Not yet reaped by wait_exit().
  bool running() {
    if (pid_ <= 0 || exited_) return false;
    if (waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
    return !exited_;
  }
  /// Waits until it exits; its exit status (-1 when a signal killed it).
  int wait_exit() {
    if (!exited_) waitpid(pid_, &status_, 0), exited_ = true;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }
  /// The signal that ended it (0 if it exited, or has not been reaped by wait_exit()).
  int term_signal() const { return exited_ && WIFSIGNALED(status_) ? WTERMSIG(status_) : 0; }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

}  // namespace llm0::testing_fixtures
