// metrics.jsonl of a run directory: one JSON object per logged step or evaluation, each with its
// optimizer "step". A run resumed from a checkpoint re-runs the steps after it; the records the
// interrupted run wrote for those steps are dropped first, so every step appears once.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace llm0 {

/// Rewrites the metrics file `path` without the records whose "step" is greater than `step`
/// (and without a line that is not a JSON object, such as one cut short by a crash), atomically
/// (path + ".tmp", fsync, rename). A missing file is left missing. Throws llm0::Error naming the
/// path if it cannot be rewritten.
void drop_metrics_after(const std::string& path, int step);

/// One line of a metrics file as a JSON object, or a discarded value (is_discarded()) when the line
/// is not a record: not JSON, not an object, without a "step" that is an integer >= 0, or nested
/// deeper than kMaxJsonDepth (core/json_parse.h).
/// The readers skip such lines (a line cut short by a crash is one).
nlohmann::json parse_metrics_line(const std::string& line);

}  // namespace llm0
