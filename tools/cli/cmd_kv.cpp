// `llm0 kv CONFIG.json... [--context N] [--dtype bf16|fp16|fp8|fp32] [--as mha|mqa|gqa:G] [--json]`
// prints the KV-cache ledger of each Hugging Face config (src/ledger/kv_ledger.h): attention kind,
// layers by kind, the per-layer formula, KV bytes per token and at the context, fixed state.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "core/check.h"
#include "ledger/kv_format.h"
#include "core/json_file.h"
#include "ledger/kv_ledger.h"
#include "lesson/lesson_kv_measure.h"

namespace llm0::cli {

namespace {

struct KvArgs {
  std::vector<std::string> configs;
  int64_t context = -1;
  bool has_context = false;
  std::string dtype = "bf16";
  std::string as;
  bool json = false, measure = false;
};

// "131,072 B (128 KiB)"
std::string bytes_text(uint64_t b) {
  return format("{} B ({})", format_thousands(b), format_bytes(b));
}

void print_row(const char* label, const std::string& value) {
  std::printf("  %-18s %s\n", label, value.c_str());
}

void print_layers(const KvLedger& l) {
  std::string counts;
  for (const KvLayerGroup& g : l.groups)
    counts += format("{}{} {}", counts.empty() ? "" : ", ", g.layers, g.layer_type);
  print_row("layers", format("{} ({})", l.num_hidden_layers, counts));
  bool first = true;
  for (const KvLayerGroup& g : l.groups) {
    const std::string kind =
        g.attention ? format(" [{}]", attention_kind_name(*g.attention)) : std::string();
    print_row(first ? "per layer" : "", g.layer_type + kind + ": " + g.formula);
    first = false;
  }
}

void print_ledger(const KvLedger& l) {
  std::printf("%s%s\n", l.source.c_str(),
              l.model_type.empty() ? "" : format("  (model_type {})", l.model_type).c_str());
  print_row("attention", l.attention);
  print_row("heads", format("{} q heads, {} KV heads, head_dim {}{}", l.num_attention_heads,
                            l.num_key_value_heads, l.head_dim,
                            l.v_head_dim != l.head_dim ? format(" (V {})", l.v_head_dim) : ""));
  print_row("dtype", format("{} ({} B per element)", element_type_ledger_name(l.dtype),
                            element_bytes(l.dtype, 1)));
  print_layers(l);
  print_row("KV per token", bytes_text(l.kv_bytes_per_token));
  if (l.mla_expanded_bytes_per_token > 0)
    print_row("MLA expanded", format("{} -- {}", bytes_text(l.mla_expanded_bytes_per_token),
                                     l.mla_expanded_formula));
  else if (!l.mla_expanded_formula.empty())
    print_row("MLA expanded", l.mla_expanded_formula);
  print_row("KV at context", format("{} tokens: {}", format_thousands(static_cast<uint64_t>(
                                                          l.context)),
                                    bytes_text(l.kv_bytes_at_context)));
  if (l.fixed_state_bytes > 0) {
    print_row("linear state", bytes_text(l.linear_state_bytes) + ", fp32");
    print_row("conv window", format("{}, {} ({} positions × {} channels per layer)",
                                    bytes_text(l.conv_state_bytes), element_type_ledger_name(l.dtype),
                                    l.conv_window_positions, l.conv_channels));
  }
  print_row("fixed state", bytes_text(l.fixed_state_bytes));
  print_row("total at context", bytes_text(l.total_bytes_at_context));
  for (const std::string& n : l.notes) print_row("note", n);
}

// The engine's bytes on a small model of the same kind (lesson_kv_measure.h).
void print_measured(const nlohmann::json& m) {
  if (m.contains("error")) return print_row("engine check", "not run: " + m["error"].get<std::string>());
  for (const nlohmann::json& r : m["rows"]) {
    const uint64_t e = r["engine_bytes"], l = r["ledger_bytes"];
    print_row("engine check", format("small model of this kind, {} tokens, {}: engine {} B, ledger {} B{}",
                                     m["tokens"].get<int>(), r["dtype"].get<std::string>(), e, l,
                                     e == l ? " (equal)" : " (DIFFERENT)"));
  }
}

void run_kv(const KvArgs& a) {
  KvOptions opt;
  if (a.has_context) {
    LLM0_CHECK(a.context >= 0, "--context must be >= 0 tokens, got {}", a.context);
    opt.context = a.context;
  }
  opt.dtype = parse_element_type(a.dtype);
  if (!a.as.empty()) opt.as = parse_kv_as(a.as);
  std::vector<KvLedger> ledgers;
  std::vector<nlohmann::json> measured;
  for (const std::string& path : a.configs) {
    ledgers.push_back(kv_ledger_from_file(path, opt));
    if (a.measure) measured.push_back(lesson::measure_kv_small_model(read_json_file(path, "model config file")));
  }
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < ledgers.size(); ++i) {
      out.push_back(to_json(ledgers[i]));
      if (a.measure) out.back()["measured"] = measured[i];
    }
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  for (size_t i = 0; i < ledgers.size(); ++i) {
    if (i > 0) std::printf("\n");
    print_ledger(ledgers[i]);
    if (a.measure) print_measured(measured[i]);
  }
}

}  // namespace

void register_kv(CLI::App& app) {
  auto args = std::make_shared<KvArgs>();
  CLI::App* sub = app.add_subcommand(
      "kv", "KV-cache bytes per token and at a context, from Hugging Face config.json files");
  sub->add_option("configs", args->configs, "config.json files")->required();
  sub->add_option("--context", args->context,
                  "Context length in tokens (default: max_position_embeddings)")
      ->each([args](const std::string&) { args->has_context = true; });
  sub->add_option("--dtype", args->dtype, "Element type of K/V: bf16, fp16, fp8, fp32")
      ->capture_default_str();
  sub->add_option("--as", args->as, "Recompute the attention layers as mha, mqa or gqa:G");
  sub->add_flag("--json", args->json, "Print a JSON array, one object per config");
  sub->add_flag("--measure", args->measure,
                "Also forward 16 tokens through the engine's cache on a small random model of the "
                "same kind and print its bytes beside the ledger's (\"measured\" in JSON)");
  add_threads_option(sub);
  sub->callback([args] { run_kv(*args); });
}

}  // namespace llm0::cli
