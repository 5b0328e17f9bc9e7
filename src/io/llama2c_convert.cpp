// convert_llama2c (see llama2c.h): a llama2.c checkpoint and tokenizer -> a Hugging Face Llama
// directory (config.json as transformers' LlamaConfig names its fields; model.safetensors F32).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/check.h"
#include "io/checkpoint.h"
#include "io/llama2c.h"
#include "io/llama2c_tokenizer.h"
#include "io/safetensors.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

constexpr int kBos = 1, kEos = 2;  // llama2.c / SentencePiece: <s>, </s>

void write_json(const std::string& path, const ordered_json& j) {
  const std::string text = j.dump(2) + "\n";
  AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

ordered_json config_json(const Llama2cHeader& h) {
  return {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"},
          {"hidden_size", h.dim}, {"intermediate_size", h.hidden_dim},
          {"num_hidden_layers", h.n_layers}, {"num_attention_heads", h.n_heads},
          {"num_key_value_heads", h.n_kv_heads}, {"vocab_size", h.vocab_size},
          {"max_position_embeddings", h.seq_len}, {"hidden_act", "silu"}, {"rms_norm_eps", 1e-5},
          {"rope_theta", 10000.0}, {"tie_word_embeddings", h.shared_classifier},
          {"attention_bias", false}, {"mlp_bias", false}, {"bos_token_id", kBos},
          {"eos_token_id", kEos}, {"torch_dtype", "float32"}};
}

}  // namespace

void convert_llama2c(const std::string& model_path, const std::string& tokenizer_path,
                     const std::string& out_dir) {
  const Llama2cModel m = read_llama2c_model(model_path);
  const std::vector<Llama2cToken> tokens = read_llama2c_tokenizer(tokenizer_path);
  LLM0_CHECK(static_cast<int>(tokens.size()) == m.header.vocab_size,
             "{} holds {} tokens but the model {} has vocab_size={}: they do not belong together",
             tokenizer_path, tokens.size(), model_path, m.header.vocab_size);
  const ordered_json tokenizer = llama2c_tokenizer_json(tokens, tokenizer_path);
  CheckpointWriter out(out_dir);
  std::vector<TensorRef> refs;  // sorted by name: the same file from either header version
  for (size_t i = 0; i < m.names.size(); ++i)
    refs.push_back({m.names[i], Shape(std::vector<int64_t>(m.shapes[i])), m.values[i].data()});
  std::sort(refs.begin(), refs.end(), [](const TensorRef& a, const TensorRef& b) { return a.name < b.name; });
  write_safetensors(out.path("model.safetensors"), refs, {{"format", "pt"}});
  write_json(out.path("config.json"), config_json(m.header));
  write_json(out.path("generation_config.json"), {{"bos_token_id", kBos}, {"eos_token_id", kEos}});
  write_json(out.path("tokenizer.json"), tokenizer);
  out.commit();
}

}  // namespace llm0
