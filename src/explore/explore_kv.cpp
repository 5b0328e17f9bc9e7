// The ledger endpoints (explore_handlers.h): a shipped reference config or a pasted config.json
// through kv_ledger, as `llm0 kv FILE --json` (tools/cli/cmd_kv.cpp) computes it.
#include "explore/explore_handlers.h"
#include "ledger/kv_ledger.h"

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
  const QueryArgs q(r.query, {"context", "dtype", "as"});
  return to_json(kv_ledger_from_file(reference_config_path(name), kv_options(q)));
}

json kv_pasted(ExploreApi&, const ApiRequest& r) {
  const QueryArgs q(r.query, {"context", "dtype", "as"});
  json config;
  try {
    config = json::parse(r.body);
  } catch (const json::parse_error& e) {
    throw ExploreError(400, "bad_request", format("the pasted config.json is not valid JSON: {}", e.what()));
  }
  if (!config.is_object())
    throw ExploreError(400, "bad_request", "the pasted config.json must be a JSON object ({...})");
  return to_json(kv_ledger(config, kv_options(q), "config.json"));
}

}  // namespace llm0::explore
