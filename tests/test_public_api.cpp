// The public headers (include/llm0/) compile on their own and expose the library: a program
// that only includes them can build a model, run it with a cache and read its config.
#include <gtest/gtest.h>

#include <llm0/config.h>
#include <llm0/generate.h>
#include <llm0/model.h>
#include <llm0/tokenizer.h>
#include <llm0/train.h>

TEST(PublicApi, BuildRunAndCountThroughPublicHeaders) {
  llm0::ModelConfig c = llm0::ModelConfig::from_json(nlohmann::json{
      {"vocab_size", 50}, {"hidden_size", 16}, {"intermediate_size", 24},
      {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
      {"max_position_embeddings", 8}, {"rms_norm_eps", 1e-6}, {"rope_theta", 1e4}});
  EXPECT_EQ(c.head_dim, 4);  // hidden_size / num_attention_heads when absent
  llm0::Model m(c);
  llm0::init_weights(m, 1);
  llm0::ModelCache cache = m.new_cache();
  const int tokens[3] = {1, 2, 3};
  std::vector<float> logits(3 * 50);
  llm0::InferContext ctx(m);
  m.forward_cached(tokens, 3, cache, ctx, logits.data());
  EXPECT_EQ(ctx.total_counters().kv_projected, 2u * 3u);  // 2 layers x 3 tokens
  EXPECT_EQ(cache.bytes_in_use(), 2u * 2 * 2 * 4 * 4 * 3);
}
