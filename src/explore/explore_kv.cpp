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
  opt.dtype = parse_element_type(q.text("dtype", "bf16"));
  if (q.has("as")) opt.as = parse_kv_as(q.text("as"));
  return opt;
}

}  // namespace

// A config the ledger refuses: code bad_config, with the field its message names ("field \"X\"" or
// the first quoted name) as data for the page's sentence.
template <typename F>
json config_checked(F&& compute) {
  try {
    return compute();
  } catch (const ExploreError&) {
    throw;
  } catch (const Error& e) {
    const std::string m = e.what();
    json data = json::object();
    if (const size_t a = m.find('"'), b = a == std::string::npos ? a : m.find('"', a + 1); b != std::string::npos)
      data["field"] = m.substr(a + 1, b - a - 1);
    throw ExploreError(400, "bad_config", m, "", data);
  }
}

json kv_reference(ExploreApi& api, const ApiRequest& r, const std::string& name) {
  const QueryArgs q(r.query, {"context", "dtype", "as", "measure"});
  const std::string path = reference_config_path(name);
  json j = to_json(kv_ledger_from_file(path, kv_options(q)));
  if (q.flag("measure")) {
    const ExploreApi::HeavyTurn turn = api.heavy_turn();
    j["measured"] = lesson::measure_kv_small_model(read_json_file(path, "model config file"));
  }
  return j;
}

json kv_pasted(ExploreApi& api, const ApiRequest& r) {
  const QueryArgs q(r.query, {"context", "dtype", "as", "measure"});
  if (r.body.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ExploreError(400, "empty_body", "empty config: the request has no body (POST the config.json)");
  json config;
  try {
    config = parse_json(r.body, "the pasted config.json");
  } catch (const JsonTooDeep& e) {
    throw ExploreError(400, "bad_json", e.what(), "", e.field.empty() ? json::object() : json{{"field", e.field}});
  } catch (const Error& e) {
    throw ExploreError(400, "bad_json", e.what());
  }
  if (!config.is_object())
    throw ExploreError(400, "not_object", "the pasted config.json must be a JSON object ({...})");
  const KvOptions opt = kv_options(q);
  const bool measure = q.flag("measure");
  return config_checked([&] {
    json j = to_json(kv_ledger(config, opt, "config.json"));
    if (measure) {
      const ExploreApi::HeavyTurn turn = api.heavy_turn();
      j["measured"] = lesson::measure_kv_small_model(config);
    }
    return j;
  });
}

}  // namespace llm0::explore
