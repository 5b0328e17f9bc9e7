// The cache-kinds lesson. See lesson_cache_kinds.h.
#include "lesson/lesson_cache_kinds.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "config/attention_kind.h"
#include "core/check.h"
#include "lesson/lesson_printf.h"
#include "ledger/kv_format.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_decode.h"
#include "lesson/lesson_svg.h"
#include "model/init.h"
#include "model/model.h"

namespace llm0::lesson {

namespace {

// The lesson's models, written as config.json and read by the config parser like any other.
ModelConfig kind_config(int C, int max_context, int kv_heads, bool mla) {
  nlohmann::json j = {{"model_type", "llama"}, {"vocab_size", 256}, {"hidden_size", C},
                      {"intermediate_size", 5 * C / 2}, {"num_hidden_layers", 2},
                      {"num_attention_heads", 4}, {"num_key_value_heads", mla ? 4 : kv_heads},
                      {"head_dim", C / 4}, {"max_position_embeddings", max_context},
                      {"rms_norm_eps", 1e-6}, {"rope_theta", 10000.0}};
  if (mla) {  // DeepSeek-V2's proportions: r = 4·d_h, dr = d_h/2, dn = dv = d_h; dense MLPs
    const int dh = C / 4;
    j["model_type"] = "deepseek_v2", j["q_lora_rank"] = nullptr, j["kv_lora_rank"] = 4 * dh;
    j["qk_nope_head_dim"] = dh, j["qk_rope_head_dim"] = dh / 2, j["v_head_dim"] = dh;
    j["first_k_dense_replace"] = 2;
  }
  return ModelConfig::from_json(j, "lesson cache-kinds");
}

// Prefill n tokens, then decode G: bytes per token after the prefill, MACs and ms per decode.
// MLA layers decode in `form`.
CacheKindRow measure(const Model& m, MlaDecode form, const std::string& kind, int n, int G) {
  InferContext ctx(m);
  ctx.set_mla_decode(form);
  ModelCache cache = prefilled_cache(m, ctx, n, G);
  CacheKindRow row{kind, n, (double)cache.bytes_in_use() / n, 0, 0};
  ctx.reset_counters();
  row.decode_ms_per_token = decode_ms_per_token(m, ctx, cache, G);
  row.decode_macs_per_token = (double)ctx.total_counters().attn_macs / G;
  return row;
}

// printf-style line (the project's format() knows only "{}").
std::string n_text(double v) { return format_thousands((uint64_t)(v + 0.5)); }

}  // namespace

CacheKindsLesson run_cache_kinds_lesson(const CacheKindOptions& opt) {
  LLM0_CHECK(opt.hidden_size >= 8 && opt.hidden_size % 8 == 0 && opt.hidden_size <= 4096,
             "--hidden-size {} must be a multiple of 8 in [8, 4096]", opt.hidden_size);
  LLM0_CHECK(!opt.contexts.empty(), "--contexts is empty");
  for (int n : opt.contexts)
    LLM0_CHECK(n >= 1 && n <= 65536, "--contexts: {} must be in [1, 65536]", n);
  LLM0_CHECK(opt.decode_tokens >= 1 && opt.decode_tokens <= 1024,
             "--decode-tokens {} must be in [1, 1024]", opt.decode_tokens);
  const int C = opt.hidden_size, G = opt.decode_tokens;
  const int max_ctx = *std::max_element(opt.contexts.begin(), opt.contexts.end()) + G;
  CacheKindsLesson l;
  l.hidden_size = C, l.heads = 4, l.head_dim = C / 4, l.layers = 2;
  l.kv_lora_rank = C, l.rope_dim = C / 8;
  // MHA, GQA, MQA (4 query heads, 4, 2 or 1 KV heads), MLA in both decode forms.
  const struct { int kv_heads; bool mla; MlaDecode form; } kinds[] = {
      {4, false, MlaDecode::Absorbed}, {2, false, MlaDecode::Absorbed},
      {1, false, MlaDecode::Absorbed}, {0, true, MlaDecode::Absorbed},
      {0, true, MlaDecode::Expanded}};
  for (const auto& k : kinds) {
    Model m(kind_config(C, max_ctx, k.kv_heads, k.mla));
    init_weights(m, 1);
    const ModelConfig& c = m.config();
    std::string name =
        attention_kind_name(attention_kind_of(c.num_attention_heads, c.num_key_value_heads, k.mla));
    if (k.mla) name += k.form == MlaDecode::Absorbed ? " absorbed" : " expanded";
    for (int n : opt.contexts) l.rows.push_back(measure(m, k.form, name, n, G));
  }
  for (const char* stem : {"deepseek-llm-67b", "deepseek-v2"}) {
    const KvLedger k = kv_ledger_from_file(opt.reference_dir + "/" + stem + ".json", {});
    l.ledger.push_back({stem, k.attention, k.kv_bytes_per_token});
  }
  l.mla_saving = 1.0 - (double)l.ledger[1].bytes_per_token / (double)l.ledger[0].bytes_per_token;
  return l;
}

std::string cache_kinds_text(const CacheKindsLesson& l) {
  std::string s = format("Cache kinds at one width: hidden {}, {} heads × {} dims, {} layers, "
                         "random weights; MLA with kv_lora_rank {} and a {}-dim rotary key.\n"
                         "Measured by the engine: cache bytes per token after a prefill of n "
                         "tokens (float32), then per decoded token the attention multiply-adds "
                         "(scores, weighted sums, MLA's expansion or absorption) and the time.\n\n",
                         l.hidden_size, l.heads, l.head_dim, l.layers, l.kv_lora_rank, l.rope_dim);
  s += line("%-14s %8s %14s %16s %10s\n", "kind", "n", "cache B/token", "attn MACs/token",
            "ms/token");
  for (const CacheKindRow& r : l.rows)
    s += line("%-14s %8s %14s %16s %10.3f\n", r.kind.c_str(), n_text(r.context).c_str(),
              n_text(r.cache_bytes_per_token).c_str(), n_text(r.decode_macs_per_token).c_str(),
              r.decode_ms_per_token);
  s += "\nThe same comparison at full size (llm0 kv, BF16):\n";
  for (const CacheKindLedger& g : l.ledger)
    s += line("  %-18s %-7s %9s B/token\n", g.model.c_str(), g.attention.c_str(),
              format_thousands(g.bytes_per_token).c_str());
  s += line("  MLA caches %.0f%% less per token than DeepSeek-LLM-67B's GQA.\n",
            100.0 * l.mla_saving);
  s += "\nMLA's two decode forms cache the same latents and give the same logits; expanded "
       "re-creates every cached token's keys and values per step (multiply-adds ∝ n · r · H · "
       "(dn + dv)), absorbed folds W_UK into the query and W_UV after the sum (∝ n · H · (2r + dr)).\n";
  return s;
}

nlohmann::json to_json(const CacheKindsLesson& l) {
  nlohmann::json rows = nlohmann::json::array(), ledger = nlohmann::json::array();
  for (const CacheKindRow& r : l.rows)
    rows.push_back({{"kind", r.kind}, {"context", r.context},
                    {"cache_bytes_per_token", r.cache_bytes_per_token},
                    {"decode_macs_per_token", r.decode_macs_per_token},
                    {"decode_ms_per_token", r.decode_ms_per_token}});
  for (const CacheKindLedger& g : l.ledger)
    ledger.push_back({{"model", g.model}, {"attention", g.attention},
                      {"bytes_per_token", g.bytes_per_token}});
  return {{"lesson", "cache-kinds"}, {"hidden_size", l.hidden_size}, {"heads", l.heads},
          {"head_dim", l.head_dim}, {"layers", l.layers}, {"kv_lora_rank", l.kv_lora_rank},
          {"qk_rope_head_dim", l.rope_dim}, {"rows", rows}, {"ledger", ledger},
          {"mla_saving", l.mla_saving}};
}

std::string cache_kinds_svg(const CacheKindsLesson& l) {
  const char* colors[] = {"#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd"};
  std::vector<ChartSeries> series;
  for (const CacheKindRow& r : l.rows) {
    if (series.empty() || series.back().label != r.kind)
      series.push_back({r.kind, colors[series.size() % 5], r.kind == "MLA expanded", {}});
    series.back().points.push_back({(double)r.context, r.decode_macs_per_token});
  }
  return loglog_chart("Attention multiply-adds per decoded token", "context n (tokens)",
                      "multiply-adds per token", series);
}

}  // namespace llm0::lesson
