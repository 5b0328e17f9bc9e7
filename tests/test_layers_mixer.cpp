// The layer contracts (layers/mixer.h, layers/ffn.h, cache/layer_cache.h): for every mixer kind
// the CacheSpec's bytes equal what the caches it makes hold (computed two ways: from the spec's
// numbers, and by each cache class from its own storage), the spec names the cache class made,
// each layer's parameter table holds the numbers its param_counts() gives, a cache of the wrong
// class is refused naming the layer, buffers of another kind are refused (also by the typed bases'
// entry points), only MLA's expanded decode asks for context rows, and Arena::overlay shares
// memory between the layers' scratch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/arena.h"
#include "core/check.h"
#include "layers/attention.h"
#include "layers/mixer_factory.h"
#include "layers/mla.h"
#include "model/infer_context.h"
#include "model_fixtures.h"

namespace llm0 {
namespace {

using namespace testing_fixtures;

struct Row {
  const char* name;
  ModelConfig cfg;
};

// Every mixer kind and FFN kind, tiny and with all sizes different (tests/model_fixtures.h).
std::vector<Row> kinds() {
  return {{"full GQA", tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false)},
          {"sliding W=3 + full, sinks", sliding_config(3, {1, 0, 1}, true)},
          {"MLA", mla_model_config(0)},
          {"Gated DeltaNet + full", hybrid_config({1, 0}, false)},
          {"qwen2 MoE", moe_model_config("qwen2_moe")},
          {"Qwen3-Next hybrid MoE", hybrid_moe_config(4)}};
}

TEST(LayersMixer, CacheSpecBytesAreWhatTheCachesHold) {
  for (const Row& r : kinds())
    for (ElementType dtype : {ElementType::F32, ElementType::BF16}) {
      Model m(r.cfg);
      random_weights(m, 3);
      m.set_kv_dtype(dtype);
      ModelCache cache = m.new_cache();
      InferContext ctx(m);
      const std::vector<int> tokens = random_tokens(9, r.cfg.vocab_size, 5);
      std::vector<float> logits((size_t)9 * r.cfg.vocab_size);
      int len = 0;
      for (int n : {1, 1, 3, 4}) {  // lengths 1, 2, 5, 9: below, at and past the window of 3
        m.forward_cached(tokens.data() + len, n, cache, ctx, logits.data());
        len += n;
        for (int il = 0; il < r.cfg.num_hidden_layers; ++il) {
          const CacheSpec spec = m.mixer(il).cache_spec();
          const LayerCache& c = cache.layer(il);
          EXPECT_EQ(c.kind(), spec.cache) << r.name << " layer " << il;
          EXPECT_EQ(c.bytes_in_use(), spec.bytes(len, (int)element_bytes(dtype, 1)))
              << r.name << " layer " << il << " length " << len << " " << element_type_name(dtype);
        }
      }
    }
}

TEST(LayersMixer, ParamTablesHoldTheCountedNumbers) {
  for (const Row& r : kinds())
    for (int il = 0; il < r.cfg.num_hidden_layers; ++il) {
      const std::string pre = "model.layers." + std::to_string(il) + ".";
      ParamStore mixer_params, ffn_params;
      make_mixer(r.cfg, il)->declare(mixer_params, pre);
      make_ffn(r.cfg, il)->declare(ffn_params, pre);
      for (auto [store, want] : {std::pair{&mixer_params, make_mixer(r.cfg, il)->param_counts().total},
                                 std::pair{&ffn_params, make_ffn(r.cfg, il)->param_counts().total}}) {
        double numel = 0;
        for (const ParamInfo& p : store->params()) numel += (double)p.numel;
        EXPECT_EQ(numel, want) << r.name << " layer " << il;
      }
    }
}

TEST(LayersMixer, KindNamesComeFromTheFactory) {
  const ModelConfig s = sliding_config(3, {1, 0}, false), h = hybrid_config({1, 0}, false);
  EXPECT_STREQ(make_mixer(s, 0)->kind_name(), "sliding_attention");
  EXPECT_STREQ(make_mixer(s, 1)->kind_name(), "attention");
  EXPECT_STREQ(make_mixer(h, 0)->kind_name(), "linear_attention");
  EXPECT_STREQ(make_mixer(mla_model_config(0), 1)->kind_name(), "latent_attention");
  EXPECT_EQ(make_ffn(moe_model_config("qwen2_moe"), 0)->routing()->num_experts(), 6);
  EXPECT_EQ(make_ffn(h, 0)->routing(), nullptr);
}

TEST(LayersMixer, ACacheOfAnotherClassIsRefusedNamingTheLayer) {
  // Layer 0 slides; a full-attention model's cache (same sizes) gives it a PagedKvCache.
  Model sliding(sliding_config(3, {1, 0}, false));
  const Model full(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false));
  ModelCache wrong = full.new_cache();
  const int token = 1;
  std::vector<float> logits((size_t)sliding.config().vocab_size);
  try {
    InferContext ctx(sliding);
    sliding.forward_cached(&token, 1, wrong, ctx, logits.data());
    FAIL() << "a paged KV cache was accepted by a sliding-window layer";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layer 0 (sliding_attention) needs a sliding-window (ring) "
                                         "cache, got a paged KV cache"), std::string::npos) << e.what();
  }
}

TEST(LayersMixer, BuffersOfAnotherKindAreRefused) {
  const std::unique_ptr<LayerBuffers> b = hold(AttentionSaved{});
  EXPECT_NO_THROW(held<AttentionSaved>(*b));
  EXPECT_THROW(held<MlaSaved>(*b), Error);
}

// MixerOf / FfnOf unwrap what their own kind planned and refuse another kind's buffers.
TEST(LayersMixer, EntryPointsRefuseBuffersPlannedByAnotherKind) {
  const ModelConfig full = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
  const ModelConfig mla = mla_model_config(0), moe = moe_model_config("qwen2_moe");
  Arena a;
  a.begin_measure();  // views stay null: only the structs' kinds matter here
  const std::unique_ptr<LayerBuffers> saved = make_mixer(full, 0)->plan_saved(a, 1, 2);
  EXPECT_NO_THROW(make_mixer(full, 0)->saved_attention(*saved));
  EXPECT_THROW(make_mixer(mla, 0)->saved_attention(*saved), Error);
  const std::unique_ptr<LayerBuffers> dense = make_ffn(full, 0)->plan_saved(a, 2, false);
  const std::unique_ptr<Ffn> experts = make_ffn(moe, 0);
  EXPECT_THROW(experts->routing()->expert_load(*dense), Error);
}

// The context rows a mixer's inference scratch asks for: every cached position for MLA's
// expanded decode (it re-creates their k and v), none for every other kind and form.
TEST(LayersMixer, OnlyMlaExpandedDecodeAsksForContextRows) {
  for (const Row& r : kinds())
    for (MlaDecode form : {MlaDecode::Absorbed, MlaDecode::Expanded})
      for (int il = 0; il < r.cfg.num_hidden_layers; ++il) {
        InferOptions opt;
        opt.mla_decode = form;
        const std::unique_ptr<Mixer> m = make_mixer(r.cfg, il);
        const bool expands = std::string(m->kind_name()) == "latent_attention" &&
                             form == MlaDecode::Expanded;
        EXPECT_EQ(m->context_rows(opt, 37), expands ? 37 : 0) << r.name << " layer " << il;
      }
}

TEST(LayersMixer, OverlaidCarvesShareTheirStartAndTheArenaContinuesAfterTheLargest) {
  Arena a;
  float *first[2] = {}, *after = nullptr;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 0) a.begin_measure(); else a.allocate();
    a.take(3);  // 16 floats: views stay 64-byte aligned
    a.overlay(2, [&](int i) { first[i] = a.take(i == 0 ? 10 : 40); });  // 16 and 48 floats
    after = a.take(1);
  }
  EXPECT_EQ(first[0], first[1]);
  EXPECT_EQ(after, first[0] + 48);
  EXPECT_EQ(a.floats(), (size_t)(16 + 48 + 16));
}

}  // namespace
}  // namespace llm0
