// The ledger endpoints (explore_handlers.h): a shipped reference config or a pasted config.json
// through kv_ledger, as `llm0 kv FILE --json` (tools/cli/cmd_kv.cpp) computes it.
#include "explore/explore_handlers.h"
#include "core/json_file.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_kv_measure.h"

namespace llm0::explore {

using nlohmann::json;

namespace {

KvOptions kv_options(const QueryArgs& q) {
  KvOptions opt;
  if (q.has("context")) opt.context = q.integer("context", 0, (int64_t)1 << 40, 0);
  opt.dtype = parse_kv_dtype(q.text("dtype", "bf16"));
  if (q.has("as")) opt.as = parse_kv_as(q.text("as"));
  return opt;
}

}  // namespace

json kv_reference(ExploreApi&, const ApiRequest& r, const std::string& name) {
  const QueryArgs q(r.query, {"context", "dtype", "as", "measure"});
  const std::string path = reference_config_path(name);
  json j = to_json(kv_ledger_from_file(path, kv_options(q)));
  if (q.flag("measure")) j["measured"] = lesson::measure_kv_small_model(read_json_file(path, "model config file"));
  return j;
}

json kv_pasted(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"context", "dtype", "as", "measure"});
  json config;
  try {
    config = json::parse(r.body);
  } catch (const json::parse_error& e) {
    throw ExploreError(400, "bad_request", format("the pasted config.json is not valid JSON: {}", e.what()));
  }
  if (!config.is_object())
    throw ExploreError(400, "bad_request", "the pasted config.json must be a JSON object ({...})");
  json j = to_json(kv_ledger(config, kv_options(q), "config.json"));
  if (q.flag("measure")) j["measured"] = lesson::measure_kv_small_model(config);
  return j;
}

}  // namespace llm0::explore
