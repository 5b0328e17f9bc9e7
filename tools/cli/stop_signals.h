// Stopping a server command on SIGINT / SIGTERM (`llm0 serve`, `llm0 explore`): the signals are
// blocked in the constructing thread and every thread started after it, and taken by one waiting
// thread that calls the command's stop action (so no signal handler runs inside library code).
#pragma once
#include <signal.h>

#include <functional>

namespace llm0::cli {

class StopSignals {
 public:
  /// Blocks SIGINT, SIGTERM and SIGUSR1 (used to end the waiter): construct before starting
  /// any thread.
  StopSignals();
  /// Runs `listen` (which returns once `on_stop` made it stop, or by itself); a SIGINT or SIGTERM
  /// meanwhile calls on_stop(signal) on the waiting thread.
  void serve(const std::function<void()>& listen, const std::function<void(int)>& on_stop);

 private:
  sigset_t set_;
};

}  // namespace llm0::cli
