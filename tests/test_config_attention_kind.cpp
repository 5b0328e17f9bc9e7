// The attention label (config/attention_kind.h), the one place MHA/GQA/MQA/MLA and a model's
// summary line are derived: the kinds from the head counts of published models, and the summary's
// rules (mixed, hybrid, sliding, recomputed) giving the lines `llm0 kv` prints for the models named
// beside them (test_kv_ledger checks the ledger's whole answers).
#include <gtest/gtest.h>

#include "config/attention_kind.h"

namespace llm0 {
namespace {

TEST(AttentionKind, FromTheHeadCounts) {
  EXPECT_EQ(attention_kind_of(32, 32), AttentionKind::kMHA);   // Llama-2-7B
  EXPECT_EQ(attention_kind_of(32, 8), AttentionKind::kGQA);    // Llama-3-8B
  EXPECT_EQ(attention_kind_of(64, 8), AttentionKind::kGQA);    // DeepSeek-LLM-67B
  EXPECT_EQ(attention_kind_of(4, 1), AttentionKind::kMQA);
  EXPECT_EQ(attention_kind_of(1, 1), AttentionKind::kMHA);     // one head: its own K/V
  EXPECT_EQ(attention_kind_of(128, 128, true), AttentionKind::kMLA);  // DeepSeek-V2
  EXPECT_STREQ(attention_kind_name(attention_kind_of(4, 2)), "GQA");
  EXPECT_EQ(attention_kind_label(AttentionKind::kGQA, 4), "GQA:4");
  EXPECT_EQ(attention_kind_label(AttentionKind::kMQA, 1), "MQA");
}

TEST(AttentionKind, ModelLabels) {
  EXPECT_EQ(attention_label({{"GQA", true}}, 0, ""), "GQA");
  EXPECT_EQ(attention_label({{"GQA", true}}, 4096, ""), "GQA, sliding window 4096");  // Mistral-7B
  // Qwen3-Next: 3 linear layers, then a full one, repeated; each name once.
  EXPECT_EQ(attention_label({{"linear attention", false}, {"GQA", true}, {"linear attention", false},
                             {"GQA", true}}, 0, ""),
            "hybrid: GQA + linear attention");
  EXPECT_EQ(attention_label({{"shared-KV attention", true}, {"GQA", true}}, 0, ""),
            "mixed: shared-KV attention + GQA");
  EXPECT_EQ(attention_label({{"linear attention", false}}, 0, ""), "linear attention");
  EXPECT_EQ(attention_label({{"MQA", true}}, 0, "MQA"), "MQA (recomputed as MQA)");  // Llama-3-8B --as mqa
}

}  // namespace
}  // namespace llm0
