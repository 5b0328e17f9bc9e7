// Fuzz harness: config.json -> ModelConfig (config/config.h) and `llm0 kv`'s reader
// (ledger/kv_ledger.h) on the same arbitrary bytes. Properties: each either refuses with an
// llm0::Error or accepts; an accepted ModelConfig round-trips through to_json/from_json; the
// ledger of a config the engine accepts can be computed (kv is the more lenient reader); a
// ledger's totals add up (at-context bytes + fixed state = total) and serialize to JSON.
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "core/check.h"
#include "fuzz_util.h"
#include "ledger/kv_ledger.h"

using namespace llm0;

namespace {

void check_ledger(const KvLedger& l) {
  FUZZ_ASSERT(l.fixed_state_bytes == l.linear_state_bytes + l.conv_state_bytes,
              "fixed state = linear + conv");
  FUZZ_ASSERT(l.total_bytes_at_context == l.kv_bytes_at_context + l.fixed_state_bytes,
              "total = kv at context + fixed state");
  FUZZ_ASSERT(l.context >= 0, "context >= 0");
  (void)to_json(l).dump();
}

// The ledger under a few option sets (defaults, another dtype and context, each --as kind).
void ledgers(const std::string& path, bool must_work) {
  std::vector<KvOptions> options(4);
  options[1].dtype = ElementType::F32, options[1].context = 12345;
  options[2].as = parse_kv_as("mqa"), options[2].context = 0;
  options[3].as = parse_kv_as("gqa:2");
  for (const KvOptions& opt : options) {
    try {
      check_ledger(kv_ledger_from_file(path, opt));
    } catch (const Error&) {
      // --as gqa:2 may not divide the heads; the default options must work for a valid config.
      FUZZ_ASSERT(!must_work || opt.as.has_value(), "kv computes what the engine accepts");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile input("config.json"), copy("copy.json");
  const std::string& path = input.write(fuzz::as_bytes(data, size));
  bool engine_ok = false;
  try {
    const ModelConfig cfg = ModelConfig::from_file(path);
    engine_ok = true;
    const nlohmann::json j = cfg.to_json();
    const ModelConfig again = ModelConfig::from_json(j, "round trip");
    FUZZ_ASSERT(again.to_json() == j, "ModelConfig round-trips through to_json/from_json");
    copy.write(j.dump());
    ledgers(copy.path(), true);
  } catch (const Error&) {
    FUZZ_ASSERT(!engine_ok, "an accepted config's own JSON is accepted");
  }
  ledgers(path, false);
  return 0;
}
