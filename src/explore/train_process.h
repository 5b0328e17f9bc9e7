// The explorer server's one child process at a time: a training (`llm0 train`, the server's own
// program) or a corpus preparation (scripts/prepare_corpus.sh). Started from a thread the
// supervisor owns for its whole life, because PR_SET_PDEATHSIG fires when the *thread* that forked
// ends (prctl(2)): an HTTP thread may end while the run goes on. The program keeps the server's
// working directory, writes stdout and stderr to a log file, and gets one SIGTERM when the server
// stops it or dies (the trainer then checkpoints and exits 0: train_spec "stop request"), through
// a small single-threaded nanny process between them (train_process.cpp says why); the
// supervising thread reaps it and keeps the program's exit status.
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace llm0::explore {

/// What a child does: kind "train" (name = the run's name) or "corpus" (name = the corpus source).
struct ChildJob {
  std::string kind;
  std::string name;
  bool operator==(const ChildJob&) const = default;
};

class ChildSupervisor {
 public:
  ChildSupervisor();
  /// A running child gets SIGTERM and is waited for (a training checkpoints first), then the
  /// supervising thread ends.
  ~ChildSupervisor();
  ChildSupervisor(const ChildSupervisor&) = delete;
  ChildSupervisor& operator=(const ChildSupervisor&) = delete;

  /// Runs `program` with `argv` (argv[0] as given, e.g. "llm0"), stdout and stderr to `log`
  /// (appended when `append`, else truncated), stdin from /dev/null, signals unblocked and at their
  /// defaults, no descriptor of the server but those. Returns its pid, or std::nullopt without
  /// starting anything when a child is running already (running() says which). Throws llm0::Error
  /// naming the log file when it cannot be opened, or when fork fails.
  std::optional<pid_t> start(const ChildJob& job, const std::string& program,
                             const std::vector<std::string>& argv, const std::string& log, bool append);
  /// The job of the running child, if any.
  std::optional<ChildJob> running() const;
  /// Sends `sig` to the running child's nanny when it is `job` (SIGTERM, SIGINT, SIGHUP: the first
  /// of them reaches the program as SIGTERM, later ones are dropped, so a second stop cannot kill
  /// a run that is writing its checkpoint); false when it is not running.
  bool signal(const ChildJob& job, int sig);
  /// How the last child of `job` ended: its exit code, or 128 + N when signal N ended it (the
  /// shell's $?); std::nullopt while it runs or when this server never started one.
  std::optional<int> exit_status(const ChildJob& job) const;
  /// Blocks until no child runs (tests).
  void wait_idle();

 private:
  struct Spawn;
  void supervise();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  Spawn* request_ = nullptr;  // a start() waiting for the supervising thread to fork
  std::optional<ChildJob> running_;
  pid_t pid_ = -1;
  std::map<std::pair<std::string, std::string>, int> exit_status_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace llm0::explore
