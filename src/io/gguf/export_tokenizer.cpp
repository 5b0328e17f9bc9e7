// add_gguf_tokenizer (see export_tokenizer.h).
#include "io/gguf/export_tokenizer.h"

#include <map>

#include "core/check.h"
#include "core/json_file.h"
#include "io/sentencepiece_json.h"
#include "tokenizer/byte_unicode.h"

namespace llm0 {

namespace {

// Tokens as byte-level strings (specials verbatim), merges as "left right", padding up to V.
void add_gpt2(GgufWriter& g, const Tokenizer& tok, const ModelConfig& c) {
  const int V = c.vocab_size, n = tok.vocab_size();
  LLM0_CHECK(n <= V, "GGUF export: the tokenizer has {} tokens but the model's vocab_size is {}",
             n, V);
  std::vector<std::string> tokens((size_t)V);
  std::vector<int32_t> types((size_t)V, 1);  // LLAMA_TOKEN_TYPE_NORMAL
  for (int id = 0; id < n; ++id) tokens[(size_t)id] = bytes_to_byte_level(tok.token_bytes(id));
  for (const auto& [text, id] : tok.special_tokens()) {
    tokens[(size_t)id] = text;
    types[(size_t)id] = 3;  // CONTROL
  }
  for (int id = n; id < V; ++id) {  // rows of the embedding no token uses
    tokens[(size_t)id] = "[PAD" + std::to_string(id) + "]";
    types[(size_t)id] = 5;  // UNUSED
  }
  std::vector<std::string> merges;
  merges.reserve(tok.merges().size());
  for (const BpeMerge& m : tok.merges())
    merges.push_back(tokens[(size_t)m.left] + " " + tokens[(size_t)m.right]);
  g.add("tokenizer.ggml.model", GgufValue::of_string("gpt2"));
  g.add("tokenizer.ggml.pre", GgufValue::of_string("gpt-2"));
  g.add("tokenizer.ggml.tokens", GgufValue::of_strings(tokens));
  g.add("tokenizer.ggml.token_type", GgufValue::of_i32s(types));
  g.add("tokenizer.ggml.merges", GgufValue::of_strings(merges));
  int eos = c.eos_token_id, bos = c.bos_token_id;
  if (eos < 0) {
    for (const auto& [text, id] : tok.special_tokens())
      if (text == "<|endoftext|>") eos = id;
  }
  if (bos < 0) bos = eos;  // GPT-2 style: one <|endoftext|> separates documents
  if (eos >= 0) {
    g.add("tokenizer.ggml.eos_token_id", GgufValue::of_u32((uint32_t)eos));
    g.add("tokenizer.ggml.padding_token_id", GgufValue::of_u32((uint32_t)eos));
  }
  if (bos >= 0) g.add("tokenizer.ggml.bos_token_id", GgufValue::of_u32((uint32_t)bos));
  g.add("tokenizer.ggml.add_bos_token", GgufValue::of_bool(false));
  g.add("tokenizer.ggml.add_eos_token", GgufValue::of_bool(false));
}

// The SentencePiece form: pieces and types from tokenizer.json, scores from the merge ranks.
void add_llama(GgufWriter& g, const Tokenizer& tok, const nlohmann::json& j, const ModelConfig& c,
               const std::string& path) {
  const int V = c.vocab_size, n = tok.vocab_size();
  LLM0_CHECK(n <= V, "GGUF export: the tokenizer has {} tokens but the model's vocab_size is {}",
             n, V);
  std::vector<std::string> pieces((size_t)V);
  std::vector<int32_t> types((size_t)V, (int32_t)SpTokenType::Normal);
  std::map<std::string, int> ids;
  for (const auto& [piece, id] : j["model"]["vocab"].items()) {
    const int i = id.get<int>();
    pieces[(size_t)i] = piece, ids[piece] = i;
  }
  for (int b = 0; b < 256; ++b) {
    const auto it = ids.find(sentencepiece_byte_piece(b));
    if (it != ids.end()) types[(size_t)it->second] = (int32_t)SpTokenType::Byte;
  }
  for (const auto& [text, id] : tok.special_tokens()) {
    pieces[(size_t)id] = text;
    types[(size_t)id] = (int32_t)SpTokenType::Control;
  }
  const std::string unk = j["model"].value("unk_token", std::string());
  LLM0_CHECK(ids.count(unk), "GGUF export: {}: model.unk_token '{}' is not in model.vocab (llama.cpp's "
             "SentencePiece tokenizer needs an unknown token)", path, unk);
  types[(size_t)ids[unk]] = (int32_t)SpTokenType::Unknown;
  for (int id = n; id < V; ++id) {
    pieces[(size_t)id] = "[PAD" + std::to_string(id) + "]";
    types[(size_t)id] = (int32_t)SpTokenType::Unused;
  }
  const std::vector<BpeMerge>& merges = tok.merges();
  std::vector<GgufValue> scores((size_t)V, GgufValue::of_f32(-(float)(merges.size() + 1)));
  for (int id = n; id < V; ++id) scores[(size_t)id] = GgufValue::of_f32(0);
  for (size_t r = merges.size(); r-- > 0;) {  // the first merge making a piece wins
    const auto it = ids.find(pieces[(size_t)merges[r].left] + pieces[(size_t)merges[r].right]);
    if (it != ids.end()) scores[(size_t)it->second] = GgufValue::of_f32(-(float)r);
  }
  g.add("tokenizer.ggml.model", GgufValue::of_string("llama"));
  g.add("tokenizer.ggml.tokens", GgufValue::of_strings(pieces));
  g.add("tokenizer.ggml.scores", GgufValue::of_array(GgufType::FLOAT32, std::move(scores)));
  g.add("tokenizer.ggml.token_type", GgufValue::of_i32s(types));
  const std::vector<int>& prefix = tok.prefix_ids();
  const int bos = c.bos_token_id >= 0 ? c.bos_token_id : prefix.empty() ? -1 : prefix[0];
  if (bos >= 0) g.add("tokenizer.ggml.bos_token_id", GgufValue::of_u32((uint32_t)bos));
  if (c.eos_token_id >= 0) g.add("tokenizer.ggml.eos_token_id", GgufValue::of_u32((uint32_t)c.eos_token_id));
  g.add("tokenizer.ggml.unknown_token_id", GgufValue::of_u32((uint32_t)ids[unk]));
  g.add("tokenizer.ggml.add_bos_token", GgufValue::of_bool(prefix.size() == 1 && prefix[0] == bos));
  g.add("tokenizer.ggml.add_eos_token", GgufValue::of_bool(false));
  g.add("tokenizer.ggml.add_space_prefix", GgufValue::of_bool(true));
}

}  // namespace

void add_gguf_tokenizer(GgufWriter& g, const Tokenizer& tok, const std::string& tokenizer_json,
                        const ModelConfig& c) {
  std::string text;
  const nlohmann::json j = read_json_file(tokenizer_json, "tokenizer file", &text);
  if (j["model"].value("byte_fallback", false))
    add_llama(g, tok, j, c, tokenizer_json);
  else
    add_gpt2(g, tok, c);
  g.add("tokenizer.huggingface.json", GgufValue::of_string(text));  // the file as it is
}

}  // namespace llm0
