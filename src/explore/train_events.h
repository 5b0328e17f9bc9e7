// Following a run's metrics.jsonl while its trainer appends to it, for the events stream
// (GET /explore/api/train/NAME/events, explore_http.cpp): each poll returns the complete lines
// (records) added since the last one; a line still being written waits for its newline.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0::explore {

class RecordTail {
 public:
  /// Follows `path` (which may not exist yet), skipping its first `from` records.
  RecordTail(std::string path, size_t from);

  struct Update {
    std::vector<nlohmann::json> records;  ///< new records, in file order
    /// The file was replaced or shortened (a resume drops the records after its checkpoint:
    /// train/metrics_log.h drop_metrics_after): `records` then start again from the first.
    bool reset = false;
  };
  /// The records appended since the last poll (lines that are not a JSON object are skipped).
  Update poll();

 private:
  std::string path_;
  size_t skip_;
  off_t offset_ = 0;  // bytes consumed: up to the last newline read
  ino_t inode_ = 0;   // of the file being followed (0 = none yet)
};

/// One server-sent event: "data: JSON\n\n", preceded by "event: NAME\n" when `event` is given.
std::string sse_event(const nlohmann::json& data, const std::string& event = "");

}  // namespace llm0::explore
