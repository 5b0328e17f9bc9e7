// KV ledger plumbing: --as parsing, reading a config file, and to_json.
#include <fstream>

#include "core/check.h"
#include "core/json_file.h"
#include "ledger/kv_ledger.h"

namespace llm0 {

using nlohmann::json;

KvAs parse_kv_as(std::string_view text) {
  if (text == "mha") return {AttentionKind::kMHA, 0};
  if (text == "mqa") return {AttentionKind::kMQA, 1};
  const std::string_view prefix = "gqa:";
  LLM0_CHECK(text.substr(0, prefix.size()) == prefix && text.size() > prefix.size(),
             "--as \"{}\": expected mha, mqa or gqa:G", text);
  int64_t groups = 0;
  for (const char ch : text.substr(prefix.size())) {
    LLM0_CHECK(ch >= '0' && ch <= '9' && groups < (int64_t{1} << 40),
               "--as \"{}\": G must be a positive integer", text);
    groups = groups * 10 + (ch - '0');
  }
  LLM0_CHECK(groups >= 1, "--as \"{}\": G must be a positive integer", text);
  return {AttentionKind::kGQA, groups};
}

KvLedger kv_ledger_from_file(const std::string& path, const KvOptions& opt) {
  const json config = read_json_file(path, "config file");
  return kv_ledger(config, opt, path);
}

json to_json(const KvLedger& l) {
  json groups = json::array(), layers = json::object();
  for (const KvLayerGroup& g : l.groups) {
    layers[g.layer_type] = g.layers;
    groups.push_back({{"layer_type", g.layer_type},
                      {"layers", g.layers},
                      {"attention", g.attention ? json(attention_kind_name(*g.attention)) : json()},
                      {"bytes_per_token_per_layer", g.bytes_per_token_per_layer},
                      {"window", g.window},
                      {"state_bytes_per_layer", g.state_bytes_per_layer},
                      {"conv_bytes_per_layer", g.conv_bytes_per_layer},
                      {"formula", g.formula}});
  }
  json j = {{"source", l.source}, {"model_type", l.model_type}, {"attention", l.attention},
            {"attention_kind", attention_kind_name(l.attention_kind)}, {"hybrid", l.hybrid},
            {"as", l.as}, {"dtype", element_type_ledger_name(l.dtype)},
            {"bytes_per_element", (int)element_bytes(l.dtype, 1)},
            {"num_hidden_layers", l.num_hidden_layers}, {"layers", layers},
            {"num_attention_heads", l.num_attention_heads},
            {"num_key_value_heads", l.num_key_value_heads}, {"head_dim", l.head_dim},
            {"v_head_dim", l.v_head_dim}, {"sliding_window", l.sliding_window},
            {"mtp_layers_not_counted", l.mtp_layers_not_counted},
            {"kv_bytes_per_token", l.kv_bytes_per_token}, {"context", l.context},
            {"kv_bytes_at_context", l.kv_bytes_at_context},
            {"linear_state_bytes", l.linear_state_bytes}, {"linear_state_dtype", "fp32"},
            {"conv_state_bytes", l.conv_state_bytes},
            {"conv_state_dtype", element_type_ledger_name(l.dtype)},
            {"conv_window_positions", l.conv_window_positions},
            {"conv_channels", l.conv_channels}, {"fixed_state_bytes", l.fixed_state_bytes},
            {"total_bytes_at_context", l.total_bytes_at_context}, {"groups", groups},
            {"notes", l.notes}};
  // The totals as exact decimal text: past 2^53 a JavaScript (or any double) reader of the
  // numbers above rounds them; the pages format these.
  j["exact"] = {{"kv_bytes_per_token", std::to_string(l.kv_bytes_per_token)},
                {"kv_bytes_at_context", std::to_string(l.kv_bytes_at_context)},
                {"fixed_state_bytes", std::to_string(l.fixed_state_bytes)},
                {"total_bytes_at_context", std::to_string(l.total_bytes_at_context)}};
  if (!l.mla_expanded_formula.empty())  // bytes null when the config lacks a per-head size
    j["mla_expanded"] = {{"bytes_per_token", l.mla_expanded_bytes_per_token > 0
                                                 ? nlohmann::json(l.mla_expanded_bytes_per_token)
                                                 : nlohmann::json()},
                         {"formula", l.mla_expanded_formula}};
  return j;
}

}  // namespace llm0
