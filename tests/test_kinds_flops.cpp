// FLOPs = what the mixers count, for every row of the kind table (DESIGN.md "The mixer contract":
// the ledger's FLOPs equal what each mixer counts): every layer's Mixer::flops_per_token equals
// PaLM's term (Chowdhery et al., arXiv:2204.02311, Appendix B) computed here from the config and
// the layer's kind — attention's q·k and p·v, 6·H·d·T per token for a training step, 2·H·d·T for
// a forward, 4·H·d·S for one decoded token, with d = head_dim (full, sliding and shared-KV
// attention; a sliding layer counts all T, the ledger's convention) or (D + dv)/2 (MLA); Gated
// DeltaNet's delta rule, 8·nv·dk·dv per forward token at any context, 3× in training — and the
// ledger's train / forward / decode figures equal 6 / 2 / 2 FLOPs per matmul parameter plus the
// sum of those terms over the layers. Every figure is a whole number, so equality is exact.
#include <gtest/gtest.h>

#include "kinds/kind_table.h"
#include "layers/mixer_factory.h"
#include "ledger/flops.h"
#include "ledger/param_count.h"

using namespace llm0;
using namespace llm0::kinds;

namespace {

// One pass: the FLOPs per matmul parameter, the attention factor (× H·d·context) and the delta
// rule's factor (× 8·nv·dk·dv).
struct Pass {
  FlopPass pass;
  const char* name;
  double per_param, attention, delta_rule;
};
constexpr Pass kPasses[] = {{FlopPass::Train, "train", 6, 6, 3},
                            {FlopPass::Forward, "forward", 2, 2, 1},
                            {FlopPass::Decode, "decode", 2, 4, 1}};

// Layer il's own FLOPs per token at `context` positions, from the config and its kind.
double layer_flops(const ModelConfig& c, int il, const Pass& p, int context) {
  const double H = c.num_attention_heads;
  switch (c.layer(il).kind) {
    case LayerKind::FullAttention:
    case LayerKind::SlidingAttention:
    case LayerKind::SharedKvAttention: return p.attention * H * c.head_dim * context;
    case LayerKind::LatentAttention:
      return p.attention * H * ((c.mla.qk_nope_head_dim + c.mla.qk_rope_head_dim +
                                 c.mla.v_head_dim) / 2.0) * context;
    case LayerKind::LinearAttention: {
      const GatedDeltaNetConfig& g = c.linear;
      return p.delta_rule * 8.0 * g.linear_num_value_heads * g.linear_key_head_dim *
             g.linear_value_head_dim;
    }
  }
  ADD_FAILURE() << "layer " << il << ": a kind this test does not know";
  return 0;
}

double ledger(const ModelConfig& c, const Pass& p, int context) {
  switch (p.pass) {
    case FlopPass::Train: return train_flops_per_token(c, context);
    case FlopPass::Forward: return forward_flops_per_token(c, context);
    case FlopPass::Decode: return decode_flops_per_token(c, context);
  }
  return 0;
}

class KindFlops : public ::testing::TestWithParam<KindRow> {};

}  // namespace

TEST_P(KindFlops, TheLedgerCountsWhatEachMixerReports) {
  const ModelConfig& c = GetParam().config;
  const double mm = count_parameters(c).matmul_active;
  for (const Pass& p : kPasses)
    for (int context : {1, 17, 4096}) {
      SCOPED_TRACE(::testing::Message() << p.name << " at " << context << " positions");
      double layers = 0;
      for (int il = 0; il < c.num_hidden_layers; ++il) {
        const double want = layer_flops(c, il, p, context);
        EXPECT_EQ(make_mixer(c, il)->flops_per_token(p.pass, context), want) << "layer " << il;
        layers += want;
      }
      EXPECT_GT(layers, 0);
      EXPECT_EQ(ledger(c, p, context), p.per_param * mm + layers);
    }
}

// The forward is a third of the training step (flops.h), for every kind.
TEST_P(KindFlops, AForwardIsAThirdOfATrainingStep) {
  const ModelConfig& c = GetParam().config;
  for (int T : {1, 17, 4096})
    EXPECT_EQ(forward_flops_per_token(c, T), train_flops_per_token(c, T) / 3) << "T=" << T;
}

INSTANTIATE_TEST_SUITE_P(Kinds, KindFlops, every_kind(), row_name);
