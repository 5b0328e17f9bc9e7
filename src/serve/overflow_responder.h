// OverflowResponder: one thread that answers the connections over ConnectionServer's cap without
// giving any of them a thread. Each adopted socket (non-blocking) is polled together with the
// others; once its request headers are in (at most 8 KiB, within 2 s), GET /health and GET /metrics
// are answered as usual, anything else with 503 and the OpenAI error object (code "server_busy");
// part of a request whose headers are not all in after 2 s is answered 408 (code
// "request_timeout"), and a connection that sent nothing by then is closed. After answering, the socket's write side
// is shut and what the client still sends (a request body) is read and dropped until it closes
// (at most 2 s), so the reply is not destroyed by a reset. The HTTP threads hand it their lingering
// closes the same way (linger()), so a thread is free as soon as its reply is written. At most
// 1,024 sockets are held: a new one beyond that makes the oldest go (a request not yet answered
// gets 408 `request_timeout` first), so /health keeps answering whatever slow clients do.
#pragma once
#include <sys/socket.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace llm0::serve {

class OverflowResponder {
 public:
  /// The most sockets held at once.
  static constexpr size_t kMaxClients = 1024;
  /// `metrics_text` renders GET /metrics; `on_refused` is called for each 503 and 408. Both run on
  /// this responder's thread. `max_clients` (>= 1): the sockets held at once. `busy_option`: the
  /// option that sets the connection slots, named in the 503 message ("" = none: "try again").
  OverflowResponder(std::function<std::string()> metrics_text, std::function<void()> on_refused,
                    size_t max_clients = kMaxClients,
                    std::string busy_option = "llm0 serve --max-connections");
  /// Closes every socket still held.
  ~OverflowResponder();
  OverflowResponder(const OverflowResponder&) = delete;
  OverflowResponder& operator=(const OverflowResponder&) = delete;

  /// Runs `job` on the responder's thread (a job of httplib's accept loop: it hands its socket
  /// to adopt()). Does not block.
  void enqueue(std::function<void()> job);
  /// On the responder's thread: takes over `sock` (this object closes it).
  void adopt(int sock);
  /// From any thread: takes over `sock`, whose reply was sent and write side shut, and closes it
  /// when the client has closed too, or after 2 s, dropping what it still sends (a lingering
  /// close, as nginx's lingering_close). Does not block.
  void linger(int sock);

  /// The responder whose thread is calling, or nullptr.
  static OverflowResponder* current();

 private:
  struct Client;
  void loop();
  void take(int sock, bool draining);
  void step(Client& c);
  void answer(Client& c);

  std::function<std::string()> metrics_text_;
  std::string busy_option_;
  std::function<void()> on_refused_;
  size_t max_clients_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void()>> jobs_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::deque<Client> clients_;               // responder thread only, oldest first
  std::thread thread_;
};

}  // namespace llm0::serve
