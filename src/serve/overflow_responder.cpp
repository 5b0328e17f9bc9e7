// Answers of the connections over the cap, from one polling thread (overflow_responder.h).
#include "serve/overflow_responder.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/check.h"
#include "serve/raw_response.h"

namespace llm0::serve {

namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kMaxHead = 8192;
constexpr auto kHeadTime = std::chrono::seconds(2);   // to send the request headers
constexpr auto kDrainTime = std::chrono::seconds(2);  // to close after the reply
thread_local OverflowResponder* tl_responder = nullptr;
}  // namespace

struct OverflowResponder::Client {
  int sock = -1;
  Clock::time_point deadline;
  std::string head;       // request bytes received so far
  bool draining = false;  // answered; reading what is left until the client closes
};

OverflowResponder::OverflowResponder(std::function<std::string()> metrics_text, std::function<void()> on_refused,
                                     size_t max_clients, std::string busy_option)
    : metrics_text_(std::move(metrics_text)), busy_option_(std::move(busy_option)), on_refused_(std::move(on_refused)), max_clients_(std::max<size_t>(1, max_clients)) {
  thread_ = std::thread([this] { loop(); });
}

OverflowResponder::~OverflowResponder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void OverflowResponder::enqueue(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

OverflowResponder* OverflowResponder::current() { return tl_responder; }

void OverflowResponder::adopt(int sock) { take(sock, false); }

void OverflowResponder::linger(int sock) {
  enqueue([this, sock] { take(sock, true); });
}

void OverflowResponder::take(int sock, bool draining) {
  if (clients_.size() >= max_clients_) {  // the oldest goes: a request not answered yet gets 408
    Client& old = clients_.front();
    if (!old.draining && !old.head.empty()) {
      const std::string reply = raw_error_response(ApiError::request_timeout(format(
          "the request headers were still arriving while {} connections waited over the cap", max_clients_)));
      (void)::send(old.sock, reply.data(), reply.size(), MSG_NOSIGNAL);
      on_refused_();
    }
    ::close(old.sock);
    clients_.pop_front();
  }
  fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
  clients_.push_back({sock, Clock::now() + (draining ? kDrainTime : kHeadTime), {}, draining});
}

void OverflowResponder::loop() {
  tl_responder = this;
  std::vector<pollfd> fds;
  for (;;) {
    std::vector<std::function<void()>> jobs;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // With no socket to watch, sleep until a job comes; else look for jobs every 20 ms.
      if (clients_.empty()) cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) break;
      jobs.swap(jobs_);
    }
    for (auto& job : jobs) job();  // each adopts its socket
    fds.clear();
    for (const Client& c : clients_) fds.push_back({c.sock, POLLIN | POLLRDHUP, 0});
    if (!fds.empty() && ::poll(fds.data(), fds.size(), 20) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < clients_.size(); ++i)
      if (fds[i].revents || Clock::now() >= clients_[i].deadline) step(clients_[i]);
    std::erase_if(clients_, [](const Client& c) { return c.sock < 0; });  // keeps the order
  }
  std::vector<std::function<void()>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(jobs_);
  }
  for (auto& job : left) job();  // adopts its socket, closed below
  for (Client& c : clients_) ::close(c.sock);
  clients_.clear();
  tl_responder = nullptr;
}

// Reads what arrived; answers once the headers are in; closes at EOF, error or deadline.
void OverflowResponder::step(Client& c) {
  char buf[4096];
  bool eof = false;
  for (;;) {
    const ssize_t n = ::recv(c.sock, buf, sizeof(buf), 0);
    if (n > 0) {
      if (!c.draining) c.head.append(buf, (size_t)std::min<size_t>((size_t)n, kMaxHead - std::min(kMaxHead, c.head.size())));
      continue;
    }
    eof = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
    break;
  }
  const bool late = Clock::now() >= c.deadline;
  if (!c.draining && (c.head.find("\r\n\r\n") != std::string::npos || c.head.size() >= kMaxHead ||
                      (late && !c.head.empty()) || (eof && !c.head.empty()))) {
    answer(c);
    return;
  }
  if (eof || late) {
    ::close(c.sock);
    c.sock = -1;
  }
}

void OverflowResponder::answer(Client& c) {
  const std::string line = c.head.substr(0, c.head.find("\r\n"));
  auto is = [&](const char* path) {
    const std::string p = format("GET {}", path);
    return line.compare(0, p.size(), p) == 0 && (line.size() == p.size() || line[p.size()] == ' ' || line[p.size()] == '?');
  };
  // Headers still incomplete at the deadline (and under the 8 KiB limit): a stalled request.
  const bool whole = c.head.find("\r\n\r\n") != std::string::npos || c.head.size() >= kMaxHead;
  std::string reply;
  if (!whole && Clock::now() >= c.deadline) {
    reply = raw_error_response(ApiError::request_timeout(
        format("the request headers were not received within {} s", kHeadTime.count())));
    on_refused_();
  } else if (is("/health")) {
    reply = raw_response(200, "application/json", R"({"status":"ok"})");
  } else if (is("/metrics")) {
    reply = raw_response(200, "text/plain; version=0.0.4", metrics_text_());
  } else {
    const std::string option = busy_option_.empty() ? "" : " (" + busy_option_ + ")";
    reply = raw_error_response(ApiError(503, "the server is busy: every connection slot is taken" + option +
                                        "; retry later", "", "server_error", "server_busy"),
                               "Retry-After: 1\r\n");
    on_refused_();
  }
  // The send buffer of a fresh connection takes the whole reply; what does not fit is dropped.
  (void)::send(c.sock, reply.data(), reply.size(), MSG_NOSIGNAL);
  ::shutdown(c.sock, SHUT_WR);
  c.draining = true;
  c.head.clear();
  c.deadline = Clock::now() + kDrainTime;
}

}  // namespace llm0::serve
