// The only place that maps a layer kind to the class implementing it. See mixer_factory.h.
#include "layers/mixer_factory.h"

#include "layers/attention.h"
#include "layers/gated_deltanet.h"
#include "layers/mla.h"
#include "layers/mlp.h"
#include "layers/moe.h"
#include "layers/shared_kv_attention.h"

namespace llm0 {

std::unique_ptr<Mixer> make_mixer(const ModelConfig& cfg, int il, const RopeTable* rope) {
  switch (cfg.layer(il).kind) {
    case LayerKind::FullAttention:
    case LayerKind::SlidingAttention: return std::make_unique<AttentionLayer>(cfg, il, rope);
    case LayerKind::LatentAttention: return std::make_unique<MlaLayer>(cfg, il, rope);
    case LayerKind::LinearAttention: return std::make_unique<GatedDeltaNetLayer>(cfg, il);
    case LayerKind::SharedKvAttention:
      SharedKvAttentionLayer::check_config(cfg, il);
      return std::make_unique<SharedKvAttentionLayer>(cfg, il, rope);
  }
  LLM0_FAIL("layer {}: unknown layer kind", il);
}

void check_mixers(const ModelConfig& cfg) {
  for (int il = 0; il < cfg.num_hidden_layers; ++il) make_mixer(cfg, il);
}

std::unique_ptr<Ffn> make_ffn(const ModelConfig& cfg, int il) {
  switch (cfg.layer(il).ffn) {
    case FfnKind::Mlp: return std::make_unique<MlpLayer>(cfg, 0);
    case FfnKind::Moe: return std::make_unique<MoeLayer>(cfg);
  }
  LLM0_FAIL("layer {}: unknown feed-forward kind", il);
}

}  // namespace llm0
