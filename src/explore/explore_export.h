// `llm0 explore --export DIR`: a static copy of the explorer that works from file:// or any static
// host — the embedded pages written to DIR and DIR/baked-data.js setting window.LLM0_BAKED to the
// API's answers for a documented set of requests (docs/explore-api.md "Static export"), keyed by
// canonical_key(). Pages look their numbers up there when it is set.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "explore/explore_api.h"

namespace llm0::explore {

/// What the export bakes beyond the defaults.
struct ExportOptions {
  int up_to_max = ExploreLimits::kKvCacheUpTo;  ///< largest kv-cache growth length baked
};

/// The GET requests the export bakes, in order: info, the attention lesson as is (its cache_check)
/// and for every asker, the
/// kv-cache stepper grid (P 1..4 × G 1..6, up-to 0) and slider (P 2, G 3, up-to = 2^k from 8 and
/// the course's 100 and 1000, up to opt.up_to_max), shapes and ledgers of the reference configs
/// (as-is and at 262,144 tokens; the hybrid anchor also as MHA and MQA), with a model the
/// model panels on info.model.default_text, then the training page's `train` and `train/NAME` of
/// every run of the runs directory that is not training (its replay).
std::vector<ApiRequest> baked_requests(ExploreApi& api, const ExportOptions& opt);

/// Writes the embedded files under `dir` (created) and dir/baked-data.js. `progress` (optional)
/// hears each request's canonical key before it runs. A request the API refuses is left out and
/// its key and message returned. Throws llm0::Error naming a file that cannot be written.
std::vector<std::string> export_explorer(ExploreApi& api, const std::string& dir,
                                         const ExportOptions& opt,
                                         const std::function<void(const std::string&)>& progress = {});

/// The JavaScript of baked-data.js for the given entries (canonical key -> JSON).
std::string baked_data_js(const nlohmann::json& entries);

}  // namespace llm0::explore
