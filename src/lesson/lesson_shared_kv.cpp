// "Is retrieving K always wrong?" measured by the engine. See lesson_shared_kv.h.
#include "lesson/lesson_shared_kv.h"

#include <filesystem>

#include "core/check.h"
#include "core/shipped_file.h"
#include "lesson/lesson_kv_cache.h"
#include "lesson/lesson_printf.h"
#include "model/init.h"
#include "model/model.h"

namespace llm0::lesson {

namespace {
SharedKvSide measure(const ModelConfig& c, const std::string& path, int tokens) {
  Model model(c);
  init_weights(model, 1);
  SharedKvSide s;
  s.config = std::filesystem::path(path).filename().string();  // the preset's name, no folders
  s.layer_type = layer_kind_info(c.layer(0).kind).layer_type;
  s.parameters = model.params().size();
  s.bytes = measure_kv_bytes(model, lesson_prompt(tokens, c.vocab_size));
  s.bytes_per_token_per_layer = (double)s.bytes[0].engine_bytes / ((double)tokens * c.num_hidden_layers);
  return s;
}
}  // namespace

SharedKvAnswer run_shared_kv_answer(std::string gqa_config, std::string shared_config, int tokens) {
  LLM0_CHECK(tokens >= 1, "tokens must be >= 1, got {}", tokens);
  if (gqa_config.empty() && shared_config.empty() && tokens == 16) {
    // The presets' answer is deterministic (seed 1): computed once per process (the explorer's
    // page asks for lesson/attention from several widgets).
    static const SharedKvAnswer presets = run_shared_kv_answer(
        shipped_file("configs/llm0-small.json"), shipped_file("configs/llm0-shared-kv.json"), 16);
    return presets;
  }
  if (gqa_config.empty()) gqa_config = shipped_file("configs/llm0-small.json");
  if (shared_config.empty()) shared_config = shipped_file("configs/llm0-shared-kv.json");
  const ModelConfig g = ModelConfig::from_file(gqa_config), s = ModelConfig::from_file(shared_config);
  LLM0_CHECK(g.num_hidden_layers == s.num_hidden_layers &&
                 g.num_key_value_heads == s.num_key_value_heads && g.head_dim == s.head_dim,
             "{} and {} must have the same num_hidden_layers, num_key_value_heads and head_dim "
             "(got {}/{}/{} and {}/{}/{})", gqa_config, shared_config, g.num_hidden_layers,
             g.num_key_value_heads, g.head_dim, s.num_hidden_layers, s.num_key_value_heads,
             s.head_dim);
  SharedKvAnswer a;
  a.layers = g.num_hidden_layers, a.kv_heads = g.num_key_value_heads, a.head_dim = g.head_dim;
  a.tokens = tokens;
  a.gqa = measure(g, gqa_config, tokens);
  a.shared = measure(s, shared_config, tokens);
  a.ratio = (double)a.shared.bytes[0].engine_bytes / (double)a.gqa.bytes[0].engine_bytes;
  return a;
}

std::string shared_kv_answer_text(const SharedKvAnswer& a) {
  std::string s = format(
      "\nIs retrieving K always wrong? Not in a large model: DeepSeek-V4's compressed attention "
      "reads one vector as both K and V (report §2.3.3). llm0's shared_kv_attention layer does "
      "the same — one row per KV head is the key and the value — with positions in a separate "
      "rotary tail of the row, turned back on the output (lesson 6). Measured by the engine, {} "
      "layers, {} KV heads × head_dim {}, {} tokens through each model's cache:\n",
      a.layers, a.kv_heads, a.head_dim, a.tokens);
  for (const SharedKvSide* side : {&a.gqa, &a.shared}) {
    s += format("  {} ({}, {} parameters): {} B per token per layer (f32)\n", side->config,
                side->layer_type, side->parameters, side->bytes_per_token_per_layer);
    s += kv_bytes_text(side->bytes);
  }
  s += line("  shared / separate K and V: %.3f of the cache; the price: what a token is found by is "
            "also what it hands over.\n", a.ratio);
  return s;
}

nlohmann::json to_json(const SharedKvAnswer& a) {
  auto side = [](const SharedKvSide& s) {
    return nlohmann::json{{"config", s.config}, {"layer_type", s.layer_type},
                          {"parameters", s.parameters}, {"bytes", kv_bytes_json(s.bytes)},
                          {"bytes_per_token_per_layer", s.bytes_per_token_per_layer}};
  };
  return {{"layers", a.layers}, {"kv_heads", a.kv_heads}, {"head_dim", a.head_dim},
          {"tokens", a.tokens}, {"gqa", side(a.gqa)}, {"shared", side(a.shared)},
          {"ratio", a.ratio}};
}

}  // namespace llm0::lesson
