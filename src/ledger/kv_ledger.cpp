// KV ledger: per-layer cache bytes from a config.json (see kv_ledger.h for the rules and papers).
// Per token and layer, in numbers of `dtype`:
//   attention (MHA/GQA/MQA)  num_key_value_heads × (head_dim_K + head_dim_V)  (= 2·Hkv·D)
//   MLA                      kv_lora_rank + qk_rope_head_dim  (DeepSeek-V2, arXiv:2405.04434)
// Per linear-attention layer, fixed: S [linear_num_value_heads, linear_key_head_dim,
// linear_value_head_dim] in FP32, and the causal conv1d's last (linear_conv_kernel_dim - 1)
// inputs over 2·Hk·Dk + Hv·Dv channels (q, k and v are convolved; HF Qwen3NextGatedDeltaNet).
// For a config the engine builds, every layer's bytes are its mixer's CacheSpec (vLLM's
// KVCacheSpec.page_size_bytes plays the same part); the formulas above must agree with it.
#include "ledger/kv_ledger.h"

#include <algorithm>

#include "config/config.h"
#include "config/config_fields.h"
#include "config/layer_kind.h"
#include "core/check.h"
#include "layers/mixer_factory.h"
#include "ledger/kv_format.h"

namespace llm0 {

namespace {

// The cost of one attention layer per token, before any window.
struct AttentionCost {
  AttentionKind kind = AttentionKind::kMHA;
  int64_t num_key_value_heads = 0, k_dim = 0, v_dim = 0;
  uint64_t bytes = 0;
  std::string formula;
};

// MHA/GQA/MQA: num_key_value_heads × (K dim + V dim) numbers per token.
AttentionCost standard_cost(int64_t H, int64_t Hkv, int64_t k_dim, int64_t v_dim, int eb,
                            const char* dtype, std::string_view source) {
  LLM0_CHECK(Hkv <= H && H % Hkv == 0,
             "{}: num_attention_heads={} not divisible by num_key_value_heads={}", source, H,
             Hkv);
  AttentionCost c{attention_kind_of(H, Hkv), Hkv, k_dim, v_dim, 0, ""};
  c.bytes = mul_checked(static_cast<uint64_t>(Hkv) * static_cast<uint64_t>(k_dim + v_dim),
                        static_cast<uint64_t>(eb), "bytes per token per layer", source);
  const std::string head = k_dim == v_dim
      ? format("2 × num_key_value_heads {} × head_dim {}", Hkv, k_dim)
      : format("num_key_value_heads {} × (K head_dim {} + V head_dim {})", Hkv, k_dim, v_dim);
  c.formula = format("{} × {} B ({}) = {} B per token per layer", head, eb, dtype,
                     format_thousands(c.bytes));
  return c;
}

// MLA: the latent c_kv and the shared rotary key k_rope, for all heads at once.
AttentionCost mla_cost(const ConfigFields& f, int64_t H, int eb, const char* dtype) {
  const int64_t r = f.positive("kv_lora_rank"), rope = f.positive("qk_rope_head_dim");
  AttentionCost c{AttentionKind::kMLA, f.positive_or("num_key_value_heads", H), 0, 0, 0, ""};
  // Per-head sizes (for --as and the expanded line) may be missing: 0 = unknown.
  c.k_dim = f.has("qk_nope_head_dim") ? f.positive("qk_nope_head_dim") + rope : 0;
  c.v_dim = f.positive_or("v_head_dim", 0);
  c.bytes = static_cast<uint64_t>(r + rope) * static_cast<uint64_t>(eb);
  c.formula = format("(kv_lora_rank {} + qk_rope_head_dim {}) × {} B ({}) = {} B per token per "
                     "layer, shared by all heads",
                     r, rope, eb, dtype, format_thousands(c.bytes));
  return c;
}

// The attention layers' cost, honouring --as.
AttentionCost attention_cost(const ConfigFields& f, const KvOptions& opt, bool mla, int64_t H) {
  const int eb = (int)element_bytes(opt.dtype, 1);
  const char* dt = element_type_ledger_name(opt.dtype);
  int64_t k_dim = 0, v_dim = 0, Hkv = 0;
  if (mla) {
    const AttentionCost m = mla_cost(f, H, eb, dt);
    if (!opt.as) return m;
    LLM0_CHECK(m.k_dim > 0 && m.v_dim > 0, "{}: --as needs the per-head sizes "
               "qk_nope_head_dim and v_head_dim, which the config lacks", f.source);
    k_dim = m.k_dim, v_dim = m.v_dim;
  } else {
    if (f.has("head_dim")) {
      k_dim = f.positive("head_dim");
    } else {
      const int64_t C = f.positive("hidden_size");
      LLM0_CHECK(C % H == 0, "{}: hidden_size={} not divisible by num_attention_heads={} (and no "
                 "head_dim)", f.source, C, H);
      k_dim = C / H;
    }
    v_dim = k_dim;
    Hkv = f.positive_or("num_key_value_heads", H);
  }
  if (opt.as) {
    const KvAs& as = *opt.as;
    Hkv = as.kind == AttentionKind::kMHA ? H : as.kind == AttentionKind::kMQA ? 1 : as.groups;
    LLM0_CHECK(Hkv >= 1 && Hkv <= H && H % Hkv == 0,
               "{}: --as gqa:{} needs a divisor of num_attention_heads={}", f.source, Hkv, H);
  }
  AttentionCost c = standard_cost(H, Hkv, k_dim, v_dim, eb, dt, f.source);
  if (opt.as && opt.as->kind == AttentionKind::kGQA) c.kind = AttentionKind::kGQA;
  return c;
}

// Linear-attention (Gated DeltaNet) layer: fixed FP32 state plus the conv window.
KvLayerGroup linear_group(const ConfigFields& f, ElementType dtype, KvLedger& out) {
  const int64_t Hv = f.positive("linear_num_value_heads"), Hk = f.positive("linear_num_key_heads");
  const int64_t Dk = f.positive("linear_key_head_dim"), Dv = f.positive("linear_value_head_dim");
  const int64_t kernel = f.positive("linear_conv_kernel_dim");
  LLM0_CHECK(Hv % Hk == 0, "{}: linear_num_value_heads={} not divisible by linear_num_key_heads={}",
             f.source, Hv, Hk);
  const int eb = (int)element_bytes(dtype, 1);
  KvLayerGroup g;
  g.layer_type = "linear_attention";
  g.state_bytes_per_layer = mul_checked(static_cast<uint64_t>(Hv * Dk),
                                        static_cast<uint64_t>(Dv) * 4, "linear state bytes",
                                        f.source);
  out.conv_channels = 2 * Hk * Dk + Hv * Dv;
  out.conv_window_positions = kernel - 1;
  g.conv_bytes_per_layer = static_cast<uint64_t>(out.conv_channels) *
                           static_cast<uint64_t>(kernel - 1) * static_cast<uint64_t>(eb);
  g.formula = format(
      "state linear_num_value_heads {} × linear_key_head_dim {} × linear_value_head_dim {} "
      "× 4 B (fp32) = {} B; conv window (linear_conv_kernel_dim {} - 1) × channels {} (2 × "
      "linear_num_key_heads {} × {} + {} × {}) × {} B ({}) = {} B; fixed, per layer",
      Hv, Dk, Dv, format_thousands(g.state_bytes_per_layer), kernel, out.conv_channels, Hk, Dk, Hv,
      Dv, eb, element_type_ledger_name(dtype), format_thousands(g.conv_bytes_per_layer));
  return g;
}

// MLA's "what it stands for": every head's full K (nope + rope) and V. Lenient: a config that
// lacks a per-head size still gets its latent bytes; only this line says what is unknown.
void mla_expanded(const ConfigFields& f, int64_t H, int64_t L, ElementType dtype, KvLedger& out) {
  for (const char* key : {"qk_nope_head_dim", "v_head_dim"})
    if (!f.has(key)) {
      out.mla_expanded_formula = format("unknown: the config has no {}", key);
      return;
    }
  const int eb = (int)element_bytes(dtype, 1);
  const int64_t nope = f.positive("qk_nope_head_dim"), rope = f.positive("qk_rope_head_dim");
  const int64_t dv = f.positive("v_head_dim");
  const uint64_t per_layer = static_cast<uint64_t>(H * (nope + rope + dv)) * eb;
  out.mla_expanded_bytes_per_token = mul_checked(per_layer, L, "MLA expanded bytes", f.source);
  out.mla_expanded_formula = format(
      "num_attention_heads {} × (qk_nope_head_dim {} + qk_rope_head_dim {} + v_head_dim {}) × {} "
      "B = {} B per token per layer; × {} layers = {} B per token",
      H, nope, rope, dv, eb, format_thousands(per_layer), L,
      format_thousands(out.mla_expanded_bytes_per_token));
}

// The group of the kinds with a formula from the fields (full, sliding, linear attention; MLA
// as its model type's full_attention layers); nullopt for the others (llm0's extensions).
std::optional<KvLayerGroup> field_group(const ConfigFields& f, const KvOptions& opt,
                                        const AttentionCost& attn, const std::string& t,
                                        KvLedger& out) {
  if (t == "linear_attention") return linear_group(f, opt.dtype, out);
  if (t != "full_attention" && t != "sliding_attention") return std::nullopt;
  KvLayerGroup g;
  g.layer_type = t;
  g.attention = attn.kind;
  g.bytes_per_token_per_layer = attn.bytes;
  g.formula = attn.formula;
  if (t == "sliding_attention") {
    g.window = f.positive("sliding_window");
    out.sliding_window = g.window;
    g.formula += format(", held for min(context, sliding_window {}) tokens", g.window);
  }
  return g;
}

// The engine's config when llm0 builds this model (the mixers' CacheSpecs then give the bytes);
// nullopt when the fields alone count it: a config ModelConfig refuses (a model type the engine
// does not run, rope_scaling, ...) or --as on MLA (a what-if of per-head K/V no mixer has). A
// config naming an llm0 extension kind has no field formula, so its refusal is the answer.
std::optional<ModelConfig> engine_config(const ConfigFields& f, const KvOptions& opt,
                                         const AttentionCost& attn,
                                         const std::vector<std::string>& types) {
  bool extension = false;
  for (const std::string& t : types) extension |= layer_kind_info(*layer_kind_named(t)).extension;
  ModelConfig c;
  try {
    c = ModelConfig::from_json(f.config, std::string(f.source));
  } catch (const Error&) {
    if (extension) throw;
    return std::nullopt;
  }
  if (opt.as) {
    if (c.mla.enabled()) return std::nullopt;
    c.num_key_value_heads = static_cast<int>(attn.num_key_value_heads);  // checked: divides H
  }
  return c;
}

// Layer il's bytes from its CacheSpec, in `dtype`. `field` (the kinds with a field formula) must
// agree and keeps its formula; the others get the spec's.
KvLayerGroup spec_group(const std::string& t, int il, const CacheSpec& s,
                        std::optional<KvLayerGroup> field, ElementType dtype,
                        std::string_view source) {
  const uint64_t eb = element_bytes(dtype, 1);
  KvLayerGroup g;
  g.layer_type = t;
  g.bytes_per_token_per_layer = static_cast<uint64_t>(s.token_numbers()) * eb;
  g.window = s.window;
  g.state_bytes_per_layer = static_cast<uint64_t>(s.state_f32_numbers) * 4;
  g.conv_bytes_per_layer = static_cast<uint64_t>(s.state_numbers) * eb;
  if (field) {
    LLM0_CHECK(field->bytes_per_token_per_layer == g.bytes_per_token_per_layer &&
                   field->window == g.window &&
                   field->state_bytes_per_layer == g.state_bytes_per_layer &&
                   field->conv_bytes_per_layer == g.conv_bytes_per_layer,
               "{}: layer {} ({}): the ledger's formula ({}) disagrees with the engine's cache "
               "spec ({} B per token, window {}, fixed {} + {} B)", source, il, t, field->formula,
               g.bytes_per_token_per_layer, g.window, g.state_bytes_per_layer,
               g.conv_bytes_per_layer);
    return *field;
  }
  g.formula = s.v_numbers > 0
      ? format("(K {} + V {}) numbers", s.k_numbers, s.v_numbers)
      : format("one K row of {} numbers, no V row,", s.k_numbers);
  g.formula = format("{} × {} B ({}) = {} B per token per layer ({}'s cache spec)", g.formula, eb,
                     element_type_ledger_name(dtype), format_thousands(g.bytes_per_token_per_layer), t);
  if (g.window > 0) g.formula += format(", held for min(context, {}) tokens", g.window);
  if (s.state_numbers + s.state_f32_numbers > 0)
    g.formula += format("; fixed state {} B per layer",
                        format_thousands(g.state_bytes_per_layer + g.conv_bytes_per_layer));
  return g;
}

// Groups layers by kind, in order of first appearance, with their costs: from the engine's
// CacheSpecs when `engine` is set (every layer's mixer built, so every layer is checked and a
// group's layers must store alike), else from the fields.
void build_groups(const ConfigFields& f, const KvOptions& opt, const AttentionCost& attn,
                  const std::vector<std::string>& types, const std::optional<ModelConfig>& engine,
                  KvLedger& out) {
  std::vector<CacheSpec> first;  // the engine's spec of each group's first layer
  for (size_t il = 0; il < types.size(); ++il) {
    const std::string& t = types[il];
    const CacheSpec spec = engine ? make_mixer(*engine, (int)il)->cache_spec() : CacheSpec{};
    auto it = std::find_if(out.groups.begin(), out.groups.end(),
                           [&](const KvLayerGroup& g) { return g.layer_type == t; });
    if (it != out.groups.end()) {
      const CacheSpec& s0 = first[(size_t)(it - out.groups.begin())];
      LLM0_CHECK(spec.token_numbers() == s0.token_numbers() && spec.window == s0.window &&
                     spec.state_numbers == s0.state_numbers &&
                     spec.state_f32_numbers == s0.state_f32_numbers,
                 "{}: layer {} ({}) caches other sizes than the first {} layer", f.source, il, t, t);
      ++it->layers;
      continue;
    }
    std::optional<KvLayerGroup> field = field_group(f, opt, attn, t, out);
    LLM0_CHECK(engine || field, "{}: layer {} is {}, which only the engine's mixer can count",
               f.source, il, t);  // engine_config rethrows for the kinds without a formula
    KvLayerGroup g = engine ? spec_group(t, (int)il, spec, std::move(field), opt.dtype, f.source)
                            : std::move(*field);
    g.layers = 1;
    out.groups.push_back(std::move(g));
    first.push_back(spec);
  }
}

// Sums the groups into per-token, at-context and fixed totals.
void total_up(std::string_view source, KvLedger& out) {
  for (const KvLayerGroup& g : out.groups) {
    const uint64_t n = static_cast<uint64_t>(g.layers);
    const int64_t held = g.window > 0 ? std::min(out.context, g.window) : out.context;
    const uint64_t per_token = mul_checked(g.bytes_per_token_per_layer, n, "KV bytes", source);
    out.kv_bytes_per_token += per_token;
    out.kv_bytes_at_context +=
        mul_checked(per_token, static_cast<uint64_t>(held), "KV bytes at context", source);
    out.linear_state_bytes += mul_checked(g.state_bytes_per_layer, n, "state bytes", source);
    out.conv_state_bytes += mul_checked(g.conv_bytes_per_layer, n, "conv bytes", source);
  }
  out.fixed_state_bytes = out.linear_state_bytes + out.conv_state_bytes;
  out.total_bytes_at_context = out.kv_bytes_at_context + out.fixed_state_bytes;
}

// The layers' label (config/attention_kind.h): MHA/GQA/MQA/MLA for attention the fields
// describe, else the kind table's name.
std::string summary(const KvLedger& l) {
  std::vector<AttentionPart> parts;
  for (const KvLayerGroup& g : l.groups)
    parts.push_back({g.attention ? attention_kind_name(*g.attention)
                                 : layer_kind_info(*layer_kind_named(g.layer_type)).display,
                     g.bytes_per_token_per_layer > 0});
  return attention_label(parts, l.sliding_window, l.as);
}

}  // namespace

KvLedger kv_ledger(const nlohmann::json& config, const KvOptions& opt, std::string_view source) {
  LLM0_CHECK(config.is_object(), "{}: a config.json must be a JSON object", source);
  const ConfigFields f{text_config_of(config), source};
  KvLedger out;
  out.source = std::string(source);
  out.model_type = f.text_or_empty("model_type");
  out.dtype = opt.dtype;
  out.num_hidden_layers = f.positive("num_hidden_layers");
  LLM0_CHECK(out.num_hidden_layers <= kKvMaxLayers, "{}: field \"num_hidden_layers\" is {}; the "
             "ledger takes at most {} layers", source, out.num_hidden_layers, kKvMaxLayers);
  out.num_attention_heads = f.positive("num_attention_heads");
  out.mtp_layers_not_counted = f.non_negative_or("num_nextn_predict_layers", 0);
  if (opt.context) {
    LLM0_CHECK(*opt.context >= 0, "{}: context must be >= 0 tokens, got {}", source, *opt.context);
    out.context = *opt.context;
  } else {
    out.context = f.positive("max_position_embeddings");
  }
  const bool mla = f.has("kv_lora_rank");
  const AttentionCost attn = attention_cost(f, opt, mla, out.num_attention_heads);
  out.attention_kind = attn.kind;
  out.num_key_value_heads = attn.num_key_value_heads;
  out.head_dim = attn.k_dim, out.v_head_dim = attn.v_dim;
  if (opt.as) out.as = attention_kind_label(opt.as->kind, opt.as->groups);
  const std::vector<std::string> types = resolve_layer_types(f, out.num_hidden_layers);
  build_groups(f, opt, attn, types, engine_config(f, opt, attn, types), out);
  out.hybrid = std::any_of(out.groups.begin(), out.groups.end(),
                           [](const KvLayerGroup& g) { return g.bytes_per_token_per_layer == 0; });
  total_up(source, out);
  out.attention = summary(out);
  if (mla) mla_expanded(f, out.num_attention_heads, out.num_hidden_layers, opt.dtype, out);
  if (out.mtp_layers_not_counted > 0)
    out.notes.push_back(format("num_nextn_predict_layers={} multi-token-prediction layer(s) not "
                               "counted (used only for speculative decoding)",
                               out.mtp_layers_not_counted));
  if (out.hybrid)
    out.notes.push_back("conv window counted as the last linear_conv_kernel_dim - 1 inputs, the "
                        "minimum a causal conv needs (some implementations keep "
                        "linear_conv_kernel_dim)");
  return out;
}

}  // namespace llm0
