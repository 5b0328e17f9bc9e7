// Cancelling a long computation at its step boundaries (a lesson's generated token, a growth
// table's step): a server's handler thread installs a stop test for the request it serves
// (CancelScope: its client hung up, the server is stopping), and the computation calls
// cancel_point() between steps, which throws Cancelled once the test says stop — so abandoned work
// ends within one step instead of running to its end (as a dropped request does in the server's
// scheduler). Without a scope on the calling thread cancel_point() does nothing (the CLI, tests).
// Steps run on the thread that installed the scope: OpenMP workers inside a step never see it.
#pragma once
#include <exception>
#include <functional>

namespace llm0 {

/// Thrown by cancel_point() when the calling thread's stop test says stop. Not an llm0::Error:
/// handlers that turn Error into a 400 let it pass to the server, which answers (or drops) it.
class Cancelled : public std::exception {
 public:
  const char* what() const noexcept override {
    return "the computation was abandoned: its client closed the connection, or the server is stopping";
  }
};

/// Installs `stop` as the calling thread's stop test for the scope's life (a scope inside another
/// replaces it until it ends). `stop` is called at each cancel_point(): keep it cheap (a flag, a
/// poll() of a socket).
class CancelScope {
 public:
  explicit CancelScope(std::function<bool()> stop);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;
  /// A cancel_point() under this scope threw Cancelled.
  bool fired() const { return fired_; }

 private:
  friend void cancel_point();
  std::function<bool()> stop_;
  CancelScope* outer_;
  bool fired_ = false;
};

/// A step boundary: throws Cancelled when the calling thread's CancelScope's test says stop (and
/// from then on at every call under that scope); nothing without a scope.
void cancel_point();

}  // namespace llm0
