// Fixtures for the generator tests: tokenizers trained in the test on a small multilingual text,
// tiny random models whose vocab_size matches the tokenizer, and a "chain" model whose greedy
// output is a chosen token sequence (for streaming, stop-string and <|endoftext|> tests).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "model_fixtures.h"
#include "tokenizer/tokenizer.h"

namespace llm0::testing_fixtures {

/// A small text with multi-byte characters (2, 3 and 4 bytes in UTF-8).
inline std::vector<std::string> small_corpus() {
  return {"the cat sat on the mat. the dog sat on the log.",
          "café crème, naïve façade; 東京 is a city; emoji 😀 and €5",
          "hello hello world, the world says hello back to the cat"};
}

/// Byte-level BPE trained on small_corpus(): 256 bytes + ~40 merges (+ <|endoftext|> if eos).
/// Without eos a random model can never stop early, which makes token counts exact.
inline Tokenizer corpus_tokenizer(bool eos) {
  return Tokenizer::train(small_corpus(), eos ? 297 : 296,
                          eos ? std::vector<std::string>{"<|endoftext|>"} : std::vector<std::string>{});
}

/// tiny_config(heads, ...) with vocab_size = V (the tokenizer's size).
inline ModelConfig tiny_config_vocab(Heads heads, int V) {
  ModelConfig c = tiny_config(heads, PositionKind::Rope, 1.0, false);
  c.vocab_size = V;
  c.validate();
  return c;
}

/// A llama-style model whose greedy continuation of chain[i] is chain[i + 1]: attention and MLP
/// outputs are zero (o_proj = down_proj = 0), so the last hidden state is embed[token] = e_i (one-hot
/// in dim i); after RMSNorm that is sqrt(C)·e_i, and lm_head row chain[i+1] = e_i gives that token
/// logit sqrt(C) against 0 for every other. The ids in chain must be distinct; hidden_size = 32.
inline std::unique_ptr<Model> chain_model(const std::vector<int>& chain, int V) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  c.vocab_size = V, c.hidden_size = 32;
  c.validate();
  auto m = std::make_unique<Model>(c);
  random_weights(*m, 3);
  ParamStore& p = m->params();
  auto zero = [&](const std::string& name) {
    std::fill_n(p.value(name), p.info(name).numel, 0.0f);
  };
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const std::string l = "model.layers." + std::to_string(il);
    zero(l + ".self_attn.o_proj.weight");
    zero(l + ".mlp.down_proj.weight");
  }
  zero("model.embed_tokens.weight");
  zero("lm_head.weight");
  zero("model.norm.weight");
  std::fill_n(p.value("model.norm.weight"), c.hidden_size, 1.0f);
  const int C = c.hidden_size;
  EXPECT_EQ(std::set<int>(chain.begin(), chain.end()).size(), chain.size()) << "chain ids repeat";
  EXPECT_LE((int)chain.size(), C);
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    p.value("model.embed_tokens.weight")[(size_t)chain[i] * C + i] = 1.0f;
    p.value("lm_head.weight")[(size_t)chain[i + 1] * C + i] = 1.0f;
  }
  return m;
}

}  // namespace llm0::testing_fixtures
