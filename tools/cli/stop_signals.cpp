// SIGINT / SIGTERM stop a server command (stop_signals.h).
#include "stop_signals.h"

#include <pthread.h>

#include <thread>

namespace llm0::cli {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

void StopSignals::serve(const std::function<void()>& listen, const std::function<void(int)>& on_stop) {
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set_, &sig);
    if (sig != SIGUSR1) on_stop(sig);  // SIGUSR1: the server ended by itself
  });
  listen();
  pthread_kill(waiter.native_handle(), SIGUSR1);
  waiter.join();
}

}  // namespace llm0::cli
