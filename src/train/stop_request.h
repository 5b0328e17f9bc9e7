// A request to stop training early and cleanly (SIGINT / SIGTERM during `llm0 train`): the
// trainer finishes the step in progress, validates, checkpoints (resumable with --resume) and ends
// with stopped_by "a stop request". The flag is a lock-free atomic, so a signal handler may set it
// (tools/cli/cmd_train.cpp installs one).
#pragma once

namespace llm0 {

/// Asks the running trainer to stop after its current step. Async-signal-safe.
void request_stop();

/// Whether request_stop() was called since the last clear_stop_request(). Async-signal-safe.
bool stop_requested();

/// Forgets a request (a test's next run in the same process).
void clear_stop_request();

}  // namespace llm0
