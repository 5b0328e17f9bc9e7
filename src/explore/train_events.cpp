// Following metrics.jsonl for the events stream (train_events.h).
#include "explore/train_events.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/metrics_log.h"

namespace llm0::explore {

using nlohmann::json;

RecordTail::RecordTail(std::string path, size_t from) : path_(std::move(path)), skip_(from) {}

RecordTail::Update RecordTail::poll() {
  Update u;
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return u;
  struct stat st;
  if (fstat(fd, &st) != 0) return close(fd), u;
  if (inode_ != 0 && (st.st_ino != inode_ || st.st_size < offset_)) {
    u.reset = true, offset_ = 0, skip_ = 0;
  }
  inode_ = st.st_ino;
  std::string text;
  char buf[1 << 16];
  for (ssize_t n; (n = pread(fd, buf, sizeof buf, offset_ + (off_t)text.size())) > 0;) text.append(buf, (size_t)n);
  close(fd);
  const size_t end = text.rfind('\n');
  if (end == std::string::npos) return u;
  offset_ += (off_t)end + 1;
  for (size_t at = 0; at <= end;) {
    const size_t nl = text.find('\n', at);
    json r = parse_metrics_line(text.substr(at, nl - at));
    at = nl + 1;
    if (r.is_discarded()) continue;
    if (skip_ > 0) {
      --skip_;
      continue;
    }
    u.records.push_back(std::move(r));
  }
  return u;
}

std::string sse_event(const json& data, const std::string& event) {
  return (event.empty() ? "" : "event: " + event + "\n") + "data: " +
         data.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace llm0::explore
