// The hybrid-state lesson. See lesson_hybrid_state.h.
#include "lesson/lesson_hybrid_state.h"

#include <algorithm>
#include <cstdio>

#include "core/check.h"
#include "lesson/lesson_printf.h"
#include "core/json_file.h"
#include "ledger/kv_format.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_decode.h"
#include "model/init.h"
#include "model/model.h"

namespace llm0::lesson {

namespace {

// Prefill n tokens, read the bytes by cache kind, then decode G tokens (timed).
HybridStateRow measure(const Model& m, int n, int G) {
  InferContext ctx(m);
  ModelCache cache = prefilled_cache(m, ctx, n, G);
  HybridStateRow row;
  row.context = n;
  for (int il = 0; il < cache.num_layers(); ++il) {
    const LayerCache& c = cache.layer(il);
    (m.mixer(il).cache_spec().fixed_state() ? row.state_bytes : row.kv_bytes) += c.bytes_in_use();
  }
  row.decode_ms_per_token = decode_ms_per_token(m, ctx, cache, G);
  return row;
}

}  // namespace

HybridStateLesson run_hybrid_state_lesson(const HybridStateOptions& opt) {
  LLM0_CHECK(!opt.contexts.empty(), "--contexts is empty");
  for (int n : opt.contexts)
    LLM0_CHECK(n >= 1 && n <= 131072, "--contexts: {} must be in [1, 131072]", n);
  LLM0_CHECK(opt.decode_tokens >= 1 && opt.decode_tokens <= 1024,
             "--decode-tokens {} must be in [1, 1024]", opt.decode_tokens);
  ModelConfig c = ModelConfig::from_json(read_json_file(opt.config, "model config file"),
                                         opt.config);
  c.max_position_embeddings = std::max(
      c.max_position_embeddings,
      *std::max_element(opt.contexts.begin(), opt.contexts.end()) + opt.decode_tokens);
  Model m(c);
  init_weights(m, opt.seed);
  HybridStateLesson l;
  l.config = opt.config, l.layers = c.num_hidden_layers;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    l.linear_layers += m.mixer(il).cache_spec().fixed_state();
  for (int n : opt.contexts) l.rows.push_back(measure(m, n, opt.decode_tokens));
  if (!opt.anchor.empty()) {
    const KvLedger k = kv_ledger_from_file(opt.anchor, {});
    l.anchor = opt.anchor;
    l.anchor_kv_bytes_per_token = k.kv_bytes_per_token;
    l.anchor_state_bytes = k.fixed_state_bytes;
  }
  return l;
}

std::string hybrid_state_text(const HybridStateLesson& l) {
  std::string s = format("{}: {} layers, {} linear attention (Gated DeltaNet), {} with a KV "
                         "cache; random weights.\nMeasured by the engine after a prefill of n "
                         "tokens: bytes held by the KV caches and by the recurrent states "
                         "(float32), then the time per decoded token.\n\n",
                         l.config, l.layers, l.linear_layers, l.layers - l.linear_layers);
  s += line("%8s %14s %14s %12s %10s\n", "n", "KV bytes", "state bytes", "KV B/token",
            "ms/token");
  for (const HybridStateRow& r : l.rows)
    s += line("%8s %14s %14s %12s %10.3f\n", format_thousands(r.context).c_str(),
              format_thousands(r.kv_bytes).c_str(), format_thousands(r.state_bytes).c_str(),
              format_thousands(r.kv_bytes / (uint64_t)r.context).c_str(), r.decode_ms_per_token);
  s += "\nThe KV bytes grow in proportion to n; the state bytes do not move.\n";
  if (!l.anchor.empty())
    s += format("\nThe anchor at full size (llm0 kv {}, BF16 KV, F32 state): {} per token of KV "
                "plus {} of fixed state, whatever the context.\n",
                l.anchor, format_bytes(l.anchor_kv_bytes_per_token),
                format_bytes(l.anchor_state_bytes));
  return s;
}

nlohmann::json to_json(const HybridStateLesson& l) {
  nlohmann::json rows = nlohmann::json::array();
  for (const HybridStateRow& r : l.rows)
    rows.push_back({{"context", r.context}, {"kv_bytes", r.kv_bytes},
                    {"state_bytes", r.state_bytes},
                    {"decode_ms_per_token", r.decode_ms_per_token}});
  return {{"config", l.config}, {"layers", l.layers}, {"linear_layers", l.linear_layers},
          {"rows", rows}, {"anchor", l.anchor},
          {"anchor_kv_bytes_per_token", l.anchor_kv_bytes_per_token},
          {"anchor_state_bytes", l.anchor_state_bytes}};
}

}  // namespace llm0::lesson
