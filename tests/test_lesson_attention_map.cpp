// `llm0 lesson attention-map` (src/lesson/lesson_attention_map.h) on stories260K (GQA) and on
// small random models of the MLA, sliding-window and hybrid presets: every weight equals a
// double-precision softmax(q·k/√D) over the visible keys (and the head's sink logit) computed here from the same saved q and k
// (the engine's op read through one-hot values is checked against plain loops), rows sum to 1,
// nothing above the diagonal or outside the window, and linear layers have no heads.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/json_file.h"
#include "explore_fixtures.h"
#include "lesson/lesson_attention_map.h"
#include "model/init.h"

namespace llm0 {
namespace {

using nlohmann::json;

// The map's weights of layer il against softmax in double over the keys query t sees.
void expect_reference_weights(const Model& m, const json& layer, int il, int T) {
  const ModelConfig& c = m.config();
  const LayerKind kind = c.layers.empty() ? LayerKind::FullAttention : c.layers[(size_t)il].kind;
  const SavedAttention s = m.saved_attention(il);
  const bool mla = kind == LayerKind::LatentAttention;
  const int H = c.num_attention_heads, Hkv = mla ? H : c.num_key_value_heads;
  const int D = mla ? c.mla.qk_head_dim() : c.head_dim, W = layer["sliding_window"].get<int>();
  ASSERT_EQ(s.Hkv, Hkv);
  ASSERT_EQ(s.D, D);
  const float *q = s.q, *k = s.k;
  const std::string sink_name = "model.layers." + std::to_string(il) + ".self_attn.sinks";
  const float* sinks = m.params().has(sink_name) ? m.params().value(sink_name) : nullptr;  // gpt-oss
  ASSERT_EQ((int)layer["heads"].size(), H);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) {
      const int g = h / (H / Hkv);  // consecutive query heads share a KV head
      std::vector<double> score((size_t)T, -INFINITY);
      double mx = -INFINITY, z = 0;
      for (int j = 0; j <= t; ++j) {
        if (W > 0 && t - j >= W) continue;
        double dot = 0;
        for (int i = 0; i < D; ++i)
          dot += (double)q[((size_t)t * H + h) * D + i] * k[((size_t)j * Hkv + g) * D + i];
        score[(size_t)j] = dot / std::sqrt((double)D);
        mx = std::max(mx, score[(size_t)j]);
      }
      // A sink logit joins the softmax's denominator only: the tokens share 1 − w_sink.
      if (sinks) mx = std::max(mx, (double)sinks[h]), z += std::exp((double)sinks[h] - mx);
      for (int j = 0; j < T; ++j) z += std::exp(score[(size_t)j] - mx);
      double sum = 0, want_sum = 0;
      for (int j = 0; j < T; ++j) {
        const double got = layer["heads"][h][t][j].get<double>(), want = std::exp(score[(size_t)j] - mx) / z;
        // float32 scores of ≤ 64-dim dots and a float32 softmax: a few ulps of 1 (bound 1e-5).
        EXPECT_NEAR(got, want, 1e-5) << "layer " << il << " head " << h << " row " << t << " key " << j;
        sum += got, want_sum += want;
      }
      EXPECT_NEAR(sum, want_sum, 1e-5);
      if (!sinks) {
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
}

class AttentionMap : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = new testing_fixtures::ExploreModelDir(); }
  static void TearDownTestSuite() { delete dir_; }
  static testing_fixtures::ExploreModelDir* dir_;
};
testing_fixtures::ExploreModelDir* AttentionMap::dir_ = nullptr;

TEST_F(AttentionMap, Stories260KWeightsAreTheSoftmaxOfItsSavedQueriesAndKeys) {
  GenerationModel m = load_generation_model(dir_->model());
  const json map = lesson::attention_map_json(m, "s260", "Once upon a time, a cat");
  const int T = (int)map["tokens"].size();
  EXPECT_EQ(map["tokens"][0]["text"], "<s>") << "the post-processor's BOS is the first row";
  ASSERT_EQ((int)map["layers"].size(), m.model->config().num_hidden_layers);
  for (int il = 0; il < (int)map["layers"].size(); ++il) expect_reference_weights(*m.model, map["layers"][il], il, T);
}

TEST_F(AttentionMap, MlaSlidingAndHybridPresetsMapEverySoftmaxLayer) {
  for (const char* preset : {"llm0-small-mla", "llm0-small-swa", "llm0-small-hybrid"}) {
    SCOPED_TRACE(preset);
    json cfg = read_json_file(std::string(LLM0_SOURCE_DIR) + "/configs/" + preset + ".json");
    cfg["vocab_size"] = 512;  // the stories260K tokenizer's
    if (cfg.contains("sliding_window")) cfg["sliding_window"] = 3;  // shorter than the sentence
    GenerationModel m;
    m.model = std::make_unique<Model>(ModelConfig::from_json(cfg, preset));
    init_weights(*m.model, 3);
    m.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(dir_->model() + "/tokenizer.json"));
    const json map = lesson::attention_map_json(m, preset, "One day, a big dog ran");
    const int T = (int)map["tokens"].size();
    for (int il = 0; il < (int)map["layers"].size(); ++il) {
      const json& layer = map["layers"][il];
      if (layer["kind"] == "linear_attention") {
        EXPECT_TRUE(layer["heads"].empty());
        continue;
      }
      expect_reference_weights(*m.model, layer, il, T);
    }
  }
  GenerationModel m = load_generation_model(dir_->model());
  try {
    lesson::attention_map_json(m, "s260", std::string(300, 'x') + " y z");
    FAIL() << "a sentence over the limit was mapped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace llm0
