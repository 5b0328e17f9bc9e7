// KV ledger: per-layer cache bytes from a config.json (see kv_ledger.h for the rules and papers).
// Per token and layer, in numbers of `dtype`:
//   attention (MHA/GQA/MQA)  num_key_value_heads × (head_dim_K + head_dim_V)  (= 2·Hkv·D)
//   MLA                      kv_lora_rank + qk_rope_head_dim  (DeepSeek-V2, arXiv:2405.04434)
// Per linear-attention layer, fixed: S [linear_num_value_heads, linear_key_head_dim,
// linear_value_head_dim] in FP32, and the causal conv1d's last (linear_conv_kernel_dim - 1)
// inputs over 2·Hk·Dk + Hv·Dv channels (q, k and v are convolved; HF Qwen3NextGatedDeltaNet).
#include "ledger/kv_ledger.h"

#include <algorithm>

#include "config/config_fields.h"
#include "core/check.h"
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

AttentionKind kind_of(int64_t H, int64_t Hkv) {
  if (Hkv == H) return AttentionKind::kMHA;
  return Hkv == 1 ? AttentionKind::kMQA : AttentionKind::kGQA;
}

// MHA/GQA/MQA: num_key_value_heads × (K dim + V dim) numbers per token.
AttentionCost standard_cost(int64_t H, int64_t Hkv, int64_t k_dim, int64_t v_dim, int eb,
                            const char* dtype, std::string_view source) {
  LLM0_CHECK(Hkv <= H && H % Hkv == 0,
             "{}: num_attention_heads={} not divisible by num_key_value_heads={}", source, H,
             Hkv);
  AttentionCost c{kind_of(H, Hkv), Hkv, k_dim, v_dim, 0, ""};
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
  const int eb = kv_dtype_bytes(opt.dtype);
  const char* dt = kv_dtype_name(opt.dtype);
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
KvLayerGroup linear_group(const ConfigFields& f, KvDtype dtype, KvLedger& out) {
  const int64_t Hv = f.positive("linear_num_value_heads"), Hk = f.positive("linear_num_key_heads");
  const int64_t Dk = f.positive("linear_key_head_dim"), Dv = f.positive("linear_value_head_dim");
  const int64_t kernel = f.positive("linear_conv_kernel_dim");
  LLM0_CHECK(Hv % Hk == 0, "{}: linear_num_value_heads={} not divisible by linear_num_key_heads={}",
             f.source, Hv, Hk);
  const int eb = kv_dtype_bytes(dtype);
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
      Dv, eb, kv_dtype_name(dtype), format_thousands(g.conv_bytes_per_layer));
  return g;
}

// MLA's "what it stands for": every head's full K (nope + rope) and V. Lenient: a config that
// lacks a per-head size still gets its latent bytes; only this line says what is unknown.
void mla_expanded(const ConfigFields& f, int64_t H, int64_t L, KvDtype dtype, KvLedger& out) {
  for (const char* key : {"qk_nope_head_dim", "v_head_dim"})
    if (!f.has(key)) {
      out.mla_expanded_formula = format("unknown: the config has no {}", key);
      return;
    }
  const int eb = kv_dtype_bytes(dtype);
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

// Groups layers by kind, in order of first appearance, with their costs.
void build_groups(const ConfigFields& f, const KvOptions& opt, const AttentionCost& attn,
                  const std::vector<std::string>& types, KvLedger& out) {
  for (const std::string& t : types) {
    auto it = std::find_if(out.groups.begin(), out.groups.end(),
                           [&](const KvLayerGroup& g) { return g.layer_type == t; });
    if (it != out.groups.end()) { ++it->layers; continue; }
    KvLayerGroup g;
    if (t == "linear_attention") {
      g = linear_group(f, opt.dtype, out);
    } else {
      g.layer_type = t;
      g.attention = attn.kind;
      g.bytes_per_token_per_layer = attn.bytes;
      g.formula = attn.formula;
      if (t == "sliding_attention") {
        g.window = f.positive("sliding_window");
        out.sliding_window = g.window;
        g.formula += format(", held for min(context, sliding_window {}) tokens", g.window);
      }
    }
    g.layers = 1;
    out.groups.push_back(std::move(g));
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

std::string summary(const KvLedger& l) {
  std::string s = attention_kind_name(l.attention_kind);
  if (l.hybrid) s = "hybrid: " + s + " + linear attention";
  if (l.sliding_window > 0) s += format(", sliding window {}", l.sliding_window);
  if (!l.as.empty()) s += " (recomputed as " + l.as + ")";
  return s;
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
  if (opt.as)
    out.as = opt.as->kind == AttentionKind::kGQA ? format("GQA:{}", opt.as->groups)
                                                 : attention_kind_name(opt.as->kind);
  build_groups(f, opt, attn, resolve_layer_types(f, out.num_hidden_layers), out);
  out.hybrid = std::any_of(out.groups.begin(), out.groups.end(),
                           [](const KvLayerGroup& g) { return !g.attention.has_value(); });
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
